import { apiRoute, parseQuery } from "@/lib/http/route";
import { getDestinationStats } from "@/lib/delivery/stats";
import { destinationStatsQuery } from "@/lib/delivery/stats-schemas";

export const dynamic = "force-dynamic";

/** Per-destination attempt volume and success rate (default: the last 24 h), for the destinations list. */
export const GET = apiRoute(async ({ req, principal }) => ({
  destinations: await getDestinationStats({ workspaceId: principal.workspaceId, ...parseQuery(req, destinationStatsQuery) }),
}));
