import { apiRoute } from "@/lib/api/api-route";
import { captureEndpoints } from "@/lib/capture/contract";
import { getCapturedRequest } from "@/lib/capture/requests";
import { accessRefusal } from "@/lib/api/access";
import { callerOf } from "@/lib/api/principal";
import { destinationEndpoints } from "@/lib/destinations/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(captureEndpoints.request, async ({ principal, params }) =>
  getCapturedRequest({
    workspaceId: principal.workspaceId,
    binId: params.id,
    requestId: params.requestId,
    // Header values are as write-only here as in the destination: whoever may not reveal them sees them masked.
    revealHeaders: accessRefusal(callerOf(principal), destinationEndpoints.reveal) === null,
  }),
);
