import { apiRoute } from "@/lib/api/api-route";
import { checkCapturedSignatures } from "@/lib/capture/check-signatures";
import { captureEndpoints } from "@/lib/capture/contract";

export const dynamic = "force-dynamic";

export const POST = apiRoute(captureEndpoints.verify, async ({ principal, params, body }) =>
  checkCapturedSignatures({
    workspaceId: principal.workspaceId,
    binId: params.id,
    requestId: params.requestId,
    destinationId: body.destinationId,
  }),
);
