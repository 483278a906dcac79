import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { createDestination, listDestinations } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";

export const GET = apiRoute(destinationEndpoints.list, async ({ principal }) => ({
  destinations: await listDestinations({ workspaceId: principal.workspaceId }),
}));

export const POST = apiRoute(destinationEndpoints.create, async ({ principal, actor, body }) =>
  createDestination({ workspaceId: principal.workspaceId, actor, input: body }),
);
