import { apiRoute } from "@/lib/api/api-route";
import { memberEndpoints } from "@/lib/members/contract";
import { listMembers } from "@/lib/members/members";

export const dynamic = "force-dynamic";

export const GET = apiRoute(memberEndpoints.list, async ({ principal }) => ({
  members: await listMembers({ workspaceId: principal.workspaceId }),
}));
