import { apiRoute } from "@/lib/api/api-route";
import { getAlertSettings, updateAlertSettings } from "@/lib/alerts/alerts";
import { alertEndpoints } from "@/lib/alerts/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(alertEndpoints.getSettings, async ({ principal }) => getAlertSettings({ workspaceId: principal.workspaceId }));

export const PUT = apiRoute(alertEndpoints.updateSettings, async ({ principal, actor, body }) =>
  updateAlertSettings({ workspaceId: principal.workspaceId, actor, patch: body }),
);
