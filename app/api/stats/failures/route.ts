import { apiRoute } from "@/lib/api/api-route";
import { requestLogEndpoints } from "@/lib/request-log/contract";
import { listFailureGroups } from "@/lib/request-log/failures";

export const dynamic = "force-dynamic";

export const GET = apiRoute(requestLogEndpoints.failureGroups, async ({ principal, query }) => ({
  groups: await listFailureGroups({ workspaceId: principal.workspaceId, ...query }),
}));
