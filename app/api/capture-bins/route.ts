import { apiRoute } from "@/lib/api/api-route";
import { createCaptureBin, listCaptureBins, publicBase } from "@/lib/capture/bins";
import { captureEndpoints } from "@/lib/capture/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(captureEndpoints.list, async ({ req, principal }) => ({
  bins: await listCaptureBins({ workspaceId: principal.workspaceId, base: publicBase(req) }),
}));

export const POST = apiRoute(captureEndpoints.create, async ({ req, principal, actor, body }) =>
  createCaptureBin({ workspaceId: principal.workspaceId, actor, input: body, base: publicBase(req) }),
);
