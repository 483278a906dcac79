import { apiRoute } from "@/lib/api/api-route";
import { sourceEndpoints } from "@/lib/sources/contract";
import { listSourceEvents } from "@/lib/sources/debugger";

export const dynamic = "force-dynamic";

export const GET = apiRoute(sourceEndpoints.events, async ({ principal, params, query }) =>
  listSourceEvents({ workspaceId: principal.workspaceId, sourceId: params.id, query }),
);
