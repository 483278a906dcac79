import { apiRoute } from "@/lib/api/api-route";
import { memberEndpoints } from "@/lib/members/contract";
import { revokeInvitation } from "@/lib/members/invitations";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(memberEndpoints.revokeInvitation, async ({ principal, actor, params }) =>
  revokeInvitation({ workspaceId: principal.workspaceId, actor, id: params.id }),
);
