import { apiRoute } from "@/lib/api/api-route";
import { sourceEndpoints } from "@/lib/sources/contract";
import { deleteSource, getSource, updateSource } from "@/lib/sources/sources";

export const dynamic = "force-dynamic";

export const GET = apiRoute(sourceEndpoints.get, async ({ principal, params }) =>
  getSource({ workspaceId: principal.workspaceId, id: params.id, role: principal.role }),
);

export const PATCH = apiRoute(sourceEndpoints.update, async ({ principal, actor, params, body }) =>
  updateSource({ workspaceId: principal.workspaceId, actor, id: params.id, input: body }),
);

export const DELETE = apiRoute(sourceEndpoints.remove, async ({ principal, actor, params }) =>
  deleteSource({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
