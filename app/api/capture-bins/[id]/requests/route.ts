import { apiRoute, parseQuery } from "@/lib/http/route";
import { clearCapturedRequests, listCapturedRequests } from "@/lib/capture/bins";
import { listCapturedRequestsQuery } from "@/lib/capture/schemas";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ req, principal, params }) => {
  const q = parseQuery(req, listCapturedRequestsQuery);
  return { requests: await listCapturedRequests({ workspaceId: principal.workspaceId, binId: params.id, after: q.after, limit: q.limit }) };
});

export const DELETE = apiRoute<P>(async ({ principal, params }) => clearCapturedRequests({ workspaceId: principal.workspaceId, binId: params.id }));
