import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/api-route";
import { audienceEndpoints } from "@/lib/audiences/contract";
import { requestManualAudienceSync } from "@/lib/audiences/syncs";

export const dynamic = "force-dynamic";

/** "Sync now": 202 with the sync this request queued; 200 with the one already queued or running (docs/audiences.md#syncs). */
export const POST = apiRoute(audienceEndpoints.sync, async ({ principal, actor, params }) => {
  const result = await requestManualAudienceSync({ workspaceId: principal.workspaceId, actor, audienceId: params.id });
  return result.created ? result : NextResponse.json(result, { status: 200 });
});
