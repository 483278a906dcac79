import { apiRoute } from "@/lib/api/api-route";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { replayMessages } from "@/lib/request-log/replay";

export const dynamic = "force-dynamic";

export const POST = apiRoute(requestLogEndpoints.replay, async ({ principal, actor, body }) =>
  replayMessages({ workspaceId: principal.workspaceId, actor, input: body }),
);
