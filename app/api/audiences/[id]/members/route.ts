import { apiRoute } from "@/lib/api/api-route";
import { audienceEndpoints } from "@/lib/audiences/contract";
import { listAudienceMembers } from "@/lib/audiences/members";

export const dynamic = "force-dynamic";

export const GET = apiRoute(audienceEndpoints.members, async ({ principal, params, query }) =>
  listAudienceMembers({ workspaceId: principal.workspaceId, audienceId: params.id, query }),
);
