import { apiRoute } from "@/lib/api/api-route";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { getMessageDetail } from "@/lib/request-log/messages";

export const dynamic = "force-dynamic";

export const GET = apiRoute(requestLogEndpoints.message, async ({ principal, params }) =>
  getMessageDetail({ workspaceId: principal.workspaceId, id: params.id }),
);
