import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { resumeDestination } from "@/lib/destinations/pause";

export const dynamic = "force-dynamic";

// docs/routing.md#pause: admins and owners, by the endpoint's access; written to the audit log.
export const POST = apiRoute(destinationEndpoints.resume, async ({ principal, actor, params }) =>
  resumeDestination({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
