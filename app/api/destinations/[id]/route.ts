import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { deleteDestination, getDestination, updateDestination } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";

export const GET = apiRoute(destinationEndpoints.get, async ({ principal, params }) =>
  getDestination({ workspaceId: principal.workspaceId, id: params.id }),
);

export const PATCH = apiRoute(destinationEndpoints.update, async ({ principal, actor, params, body }) =>
  updateDestination({ workspaceId: principal.workspaceId, actor, id: params.id, input: body }),
);

export const DELETE = apiRoute(destinationEndpoints.remove, async ({ principal, actor, params }) =>
  deleteDestination({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
