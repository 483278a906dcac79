import { apiRoute } from "@/lib/api/api-route";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { listDeliveries } from "@/lib/request-log/deliveries";

export const dynamic = "force-dynamic";

export const GET = apiRoute(requestLogEndpoints.deliveries, async ({ principal, query }) =>
  listDeliveries({ workspaceId: principal.workspaceId, query }),
);
