import { apiRoute } from "@/lib/api/api-route";
import { captureEndpoints } from "@/lib/capture/contract";
import { clearCapturedRequests, listCapturedRequests } from "@/lib/capture/requests";

export const dynamic = "force-dynamic";

export const GET = apiRoute(captureEndpoints.requests, async ({ principal, params, query }) => ({
  requests: await listCapturedRequests({ workspaceId: principal.workspaceId, binId: params.id, ...query }),
}));

export const DELETE = apiRoute(captureEndpoints.clearRequests, async ({ principal, actor, params }) =>
  clearCapturedRequests({ workspaceId: principal.workspaceId, actor, binId: params.id }),
);
