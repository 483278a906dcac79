import { apiRoute } from "@/lib/api/api-route";
import { enableDestinationUrl } from "@/lib/alerts/alerts";
import { alertEndpoints } from "@/lib/alerts/contract";

export const dynamic = "force-dynamic";

export const POST = apiRoute(alertEndpoints.enableUrl, async ({ principal, actor, params, body }) =>
  enableDestinationUrl({ workspaceId: principal.workspaceId, actor, id: params.id, url: body.url }),
);
