import { apiRoute, parseBody } from "@/lib/http/route";
import { deleteCaptureBin, getCaptureBin, publicBase, updateCaptureBin } from "@/lib/capture/bins";
import { updateCaptureBinSchema } from "@/lib/capture/schemas";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ req, principal, params }) => getCaptureBin({ workspaceId: principal.workspaceId, id: params.id, base: publicBase(req) }));

export const PATCH = apiRoute<P>(async ({ req, principal, params }) =>
  updateCaptureBin({ workspaceId: principal.workspaceId, id: params.id, input: await parseBody(req, updateCaptureBinSchema), base: publicBase(req) }),
);

export const DELETE = apiRoute<P>(async ({ principal, params }) => deleteCaptureBin({ workspaceId: principal.workspaceId, id: params.id }));
