import { apiRoute } from "@/lib/api/api-route";
import { memberEndpoints } from "@/lib/members/contract";
import { changeMemberRole, removeMember } from "@/lib/members/members";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute(memberEndpoints.changeRole, async ({ principal, actor, params, body }) =>
  changeMemberRole({ workspaceId: principal.workspaceId, actor, userId: params.id, role: body.role }),
);

export const DELETE = apiRoute(memberEndpoints.remove, async ({ principal, actor, params }) =>
  removeMember({ workspaceId: principal.workspaceId, actor, userId: params.id }),
);
