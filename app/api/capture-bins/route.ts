import { apiRoute, parseBody } from "@/lib/http/route";
import { createCaptureBin, listCaptureBins, publicBase } from "@/lib/capture/bins";
import { createCaptureBinSchema } from "@/lib/capture/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ req, principal }) => ({ bins: await listCaptureBins({ workspaceId: principal.workspaceId, base: publicBase(req) }) }));

export const POST = apiRoute(
  async ({ req, principal }) =>
    createCaptureBin({ workspaceId: principal.workspaceId, input: await parseBody(req, createCaptureBinSchema), base: publicBase(req) }),
  { status: 201 },
);
