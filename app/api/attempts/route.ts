import { apiRoute } from "@/lib/api/api-route";
import { listAttempts } from "@/lib/request-log/attempts";
import { requestLogEndpoints } from "@/lib/request-log/contract";

export const dynamic = "force-dynamic";

export const GET = apiRoute(requestLogEndpoints.attempts, async ({ principal, query }) =>
  listAttempts({ workspaceId: principal.workspaceId, query }),
);
