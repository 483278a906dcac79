import { apiRoute } from "@/lib/api/api-route";
import { audienceEndpoints } from "@/lib/audiences/contract";
import { listAudienceSyncs } from "@/lib/audiences/syncs";

export const dynamic = "force-dynamic";

export const GET = apiRoute(audienceEndpoints.syncs, async ({ principal, params }) => ({
  syncs: await listAudienceSyncs({ workspaceId: principal.workspaceId, audienceId: params.id }),
}));
