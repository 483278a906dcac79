import { apiRoute, parseQuery } from "@/lib/http/route";
import { listMembersQuery } from "@/lib/audiences/schemas";
import { listAudienceMembers } from "@/lib/audiences/members";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ req, principal, params }) =>
  listAudienceMembers({ workspaceId: principal.workspaceId, audienceId: params.id, query: parseQuery(req, listMembersQuery) }),
);
