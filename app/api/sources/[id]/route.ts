import { apiRoute, parseBody } from "@/lib/http/route";
import { updateSourceSchema } from "@/lib/sources/schemas";
import { deleteSource, getSource, updateSource } from "@/lib/sources/sources";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ principal, params }) => getSource({ workspaceId: principal.workspaceId, id: params.id }));

export const PATCH = apiRoute<P>(async ({ req, principal, params }) =>
  updateSource({ workspaceId: principal.workspaceId, id: params.id, input: await parseBody(req, updateSourceSchema) }),
);

export const DELETE = apiRoute<P>(async ({ principal, params }) => deleteSource({ workspaceId: principal.workspaceId, id: params.id }));
