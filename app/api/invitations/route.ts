import { apiRoute } from "@/lib/api/api-route";
import { publicBase } from "@/lib/capture/bins";
import { memberEndpoints } from "@/lib/members/contract";
import { createInvitation, listInvitations } from "@/lib/members/invitations";

export const dynamic = "force-dynamic";

export const GET = apiRoute(memberEndpoints.listInvitations, async ({ principal }) => ({
  invitations: await listInvitations({ workspaceId: principal.workspaceId }),
}));

export const POST = apiRoute(memberEndpoints.createInvitation, async ({ req, principal, actor, body }) =>
  createInvitation({ workspaceId: principal.workspaceId, actor, input: body, base: publicBase(req) }),
);
