import { apiRoute } from "@/lib/api/api-route";
import { getAttempt } from "@/lib/request-log/attempts";
import { requestLogEndpoints } from "@/lib/request-log/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(requestLogEndpoints.attempt, async ({ principal, params }) =>
  getAttempt({ workspaceId: principal.workspaceId, id: params.id }),
);
