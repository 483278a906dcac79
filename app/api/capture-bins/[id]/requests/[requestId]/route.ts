import { apiRoute } from "@/lib/api/api-route";
import { captureEndpoints } from "@/lib/capture/contract";
import { getCapturedRequest } from "@/lib/capture/requests";

export const dynamic = "force-dynamic";

export const GET = apiRoute(captureEndpoints.request, async ({ principal, params }) =>
  getCapturedRequest({ workspaceId: principal.workspaceId, binId: params.id, requestId: params.requestId }),
);
