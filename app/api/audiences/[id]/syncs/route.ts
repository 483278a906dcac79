import { apiRoute } from "@/lib/http/route";
import { assertAudienceId } from "@/lib/audiences/audiences";
import { listAudienceSyncs } from "@/lib/audiences/syncs";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = apiRoute<P>(async ({ principal, params }) => {
  assertAudienceId(params.id);
  return { syncs: await listAudienceSyncs({ workspaceId: principal.workspaceId, audienceId: params.id }) };
});
