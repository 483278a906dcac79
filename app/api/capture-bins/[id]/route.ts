import { apiRoute } from "@/lib/api/api-route";
import { deleteCaptureBin, getCaptureBin, publicBase, updateCaptureBin } from "@/lib/capture/bins";
import { captureEndpoints } from "@/lib/capture/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(captureEndpoints.get, async ({ req, principal, params }) =>
  getCaptureBin({ workspaceId: principal.workspaceId, id: params.id, base: publicBase(req) }),
);

export const PATCH = apiRoute(captureEndpoints.update, async ({ req, principal, actor, params, body }) =>
  updateCaptureBin({ workspaceId: principal.workspaceId, actor, id: params.id, input: body, base: publicBase(req) }),
);

export const DELETE = apiRoute(captureEndpoints.remove, async ({ principal, actor, params }) =>
  deleteCaptureBin({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
