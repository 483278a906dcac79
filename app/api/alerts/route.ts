import { apiRoute } from "@/lib/api/api-route";
import { listAlerts } from "@/lib/alerts/alerts";
import { alertEndpoints } from "@/lib/alerts/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(alertEndpoints.list, async ({ principal }) => listAlerts({ workspaceId: principal.workspaceId }));
