import { apiRoute } from "@/lib/api/api-route";
import { backfillEndpoints } from "@/lib/backfills/contract";
import { listBackfills, startBackfill } from "@/lib/backfills/backfills";

export const dynamic = "force-dynamic";

// docs/routing.md#backfill: a dry run counts; a start is written to the audit log and runs on the worker.
export const POST = apiRoute(backfillEndpoints.create, async ({ principal, actor, params, body }) =>
  startBackfill({ workspaceId: principal.workspaceId, destinationId: params.id, actor, input: body }),
);

export const GET = apiRoute(backfillEndpoints.list, async ({ principal, params }) => ({
  backfills: await listBackfills({ workspaceId: principal.workspaceId, destinationId: params.id }),
}));
