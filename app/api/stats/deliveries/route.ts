import { apiRoute, parseQuery } from "@/lib/http/route";
import { getDeliveryStats } from "@/lib/delivery/stats";
import { deliveryStatsQuery } from "@/lib/delivery/stats-schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ req, principal }) => getDeliveryStats({ workspaceId: principal.workspaceId, ...parseQuery(req, deliveryStatsQuery) }));
