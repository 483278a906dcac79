import { apiRoute } from "@/lib/api/api-route";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { getDestinationStats } from "@/lib/request-log/stats";

export const dynamic = "force-dynamic";

/** Per-destination attempt volume and success rate (default: the last 24 h), for the destinations list. */
export const GET = apiRoute(requestLogEndpoints.destinationStats, async ({ principal, query }) => ({
  destinations: await getDestinationStats({ workspaceId: principal.workspaceId, ...query }),
}));
