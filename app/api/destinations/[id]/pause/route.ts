import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { pauseDestination } from "@/lib/destinations/pause";

export const dynamic = "force-dynamic";

// docs/routing.md#pause: admins and owners, by the endpoint's access; written to the audit log.
export const POST = apiRoute(destinationEndpoints.pause, async ({ principal, actor, params }) =>
  pauseDestination({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
