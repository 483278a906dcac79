import { apiRoute } from "@/lib/api/api-route";
import { backfillEndpoints } from "@/lib/backfills/contract";
import { cancelBackfill, getBackfill } from "@/lib/backfills/backfills";

export const dynamic = "force-dynamic";

export const GET = apiRoute(backfillEndpoints.get, async ({ principal, params }) =>
  getBackfill({ workspaceId: principal.workspaceId, destinationId: params.id, id: params.backfillId }),
);

// docs/routing.md#backfill: no page is queued after the cancel commits; written to the audit log.
export const DELETE = apiRoute(backfillEndpoints.cancel, async ({ principal, actor, params }) =>
  cancelBackfill({ workspaceId: principal.workspaceId, destinationId: params.id, id: params.backfillId, actor }),
);
