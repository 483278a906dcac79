import { apiRoute, parseQuery } from "@/lib/http/route";
import { listSourceEvents, sourceEventsQuerySchema } from "@/lib/tracking/debugger";

export const dynamic = "force-dynamic";
type P = { id: string };

/** The source debugger: recent calls, accepted and rejected, newest first. */
export const GET = apiRoute<P>(async ({ req, principal, params }) =>
  listSourceEvents({ workspaceId: principal.workspaceId, sourceId: params.id, query: parseQuery(req, sourceEventsQuerySchema) }),
);
