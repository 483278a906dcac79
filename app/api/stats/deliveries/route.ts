import { apiRoute } from "@/lib/api/api-route";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { getDeliveryStats } from "@/lib/request-log/stats";

export const dynamic = "force-dynamic";

export const GET = apiRoute(requestLogEndpoints.deliveryStats, async ({ principal, query }) =>
  getDeliveryStats({ workspaceId: principal.workspaceId, ...query }),
);
