import { apiRoute, parseBody } from "@/lib/http/route";
import { destinationPatchSchema } from "@/lib/destinations/schemas";
import { deleteDestination, getDestination, updateDestination } from "@/lib/destinations/destinations";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ principal, params }) => getDestination({ workspaceId: principal.workspaceId, id: params.id }));

export const PATCH = apiRoute<P>(async ({ req, principal, params }) =>
  updateDestination({ workspaceId: principal.workspaceId, id: params.id, input: await parseBody(req, destinationPatchSchema) }),
);

export const DELETE = apiRoute<P>(async ({ principal, params }) => deleteDestination({ workspaceId: principal.workspaceId, id: params.id }));
