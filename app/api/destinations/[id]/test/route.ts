import { apiRoute, parseBody } from "@/lib/http/route";
import { testSendSchema } from "@/lib/destinations/schemas";
import { sendTestMessage } from "@/lib/destinations/test-send";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ req, principal, params }) =>
  sendTestMessage({ workspaceId: principal.workspaceId, destinationId: params.id, input: await parseBody(req, testSendSchema) }),
);
