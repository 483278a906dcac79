import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { getDestinationHealth } from "@/lib/destinations/endpoint-health";

export const dynamic = "force-dynamic";

export const GET = apiRoute(destinationEndpoints.health, async ({ principal, params }) =>
  getDestinationHealth({ workspaceId: principal.workspaceId, id: params.id }),
);
