import { apiRoute } from "@/lib/api/api-route";
import { destinationEndpoints } from "@/lib/destinations/contract";
import { sendTestMessage } from "@/lib/destinations/test-send";

export const dynamic = "force-dynamic";

export const POST = apiRoute(destinationEndpoints.test, async ({ principal, params, body }) =>
  sendTestMessage({ workspaceId: principal.workspaceId, destinationId: params.id, input: body }),
);
