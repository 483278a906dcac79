import "server-only";
import { withTransaction } from "../platform/db";
import { assertUuid, notFound } from "../platform/errors";
import { wakeWorkers } from "../platform/queue";
import { recordAudit, type Actor } from "../audit/record";
import { CONTESTED } from "../delivery/claims";
import { enqueueDeliveryJobs } from "../delivery/enqueue";
import { getDestination } from "./destinations";
import type { DestinationDto } from "./contract";

/**
 * Pause and resume a destination (docs/routing.md#pause). While paused, routing still makes its
 * deliveries and they wait, pending: the worker does not load them (lib/delivery/load.ts), so they
 * are not attempted, not failed and not dropped. Resuming sends every waiting delivery at once and
 * moves each one's retry window on by the time it was paused, so a pause never uses up the window.
 * Both are idempotent: pausing a paused destination (or resuming a running one) changes nothing and
 * writes no audit row.
 */

type Change = { workspaceId: string; actor: Actor; id: string };

export async function pauseDestination(opts: Change): Promise<DestinationDto> {
  assertUuid(opts.id, "Destination");
  await withTransaction(async (client) => {
    const { rows } = await client.query<{ id: string; paused_at: Date | null }>(
      "SELECT id, paused_at FROM destinations WHERE id = $1 AND workspace_id = $2 FOR UPDATE",
      [opts.id, opts.workspaceId],
    );
    if (rows.length === 0) throw notFound("Destination");
    if (rows[0].paused_at !== null) return;
    const {
      rows: [{ paused_at }],
    } = await client.query<{ paused_at: Date }>(
      "UPDATE destinations SET paused_at = now(), updated_at = now() WHERE id = $1 RETURNING paused_at",
      [opts.id],
    );
    await audit(client, opts, "destination.pause", { before: null, after: paused_at.toISOString() });
  });
  return getDestination(opts);
}

export async function resumeDestination(opts: Change): Promise<DestinationDto> {
  assertUuid(opts.id, "Destination");
  const resent = await withTransaction(async (client) => {
    const { rows } = await client.query<{ id: string; paused_at: Date | null }>(
      "SELECT id, paused_at FROM destinations WHERE id = $1 AND workspace_id = $2 FOR UPDATE",
      [opts.id, opts.workspaceId],
    );
    if (rows.length === 0) throw notFound("Destination");
    const pausedAt = rows[0].paused_at;
    if (pausedAt === null) return 0;
    await client.query("UPDATE destinations SET paused_at = NULL, updated_at = now() WHERE id = $1", [opts.id]);
    // Due now, and the window (counted from the first attempt, docs/webhooks.md#retries) moved on by
    // the pause, by the pending deliveries' index (deliveries_pending_idx).
    const { rows: waiting } = await client.query<{ id: string; backfill: boolean }>(
      `UPDATE deliveries SET next_attempt_at = NULL, first_attempt_at = first_attempt_at + (now() - $2::timestamptz), updated_at = now(),
              -- a job of theirs from before the pause may still be queued: whichever runs first sends (claims.ts)
              claimed_until = coalesce(claimed_until, ${CONTESTED})
        WHERE destination_id = $1 AND state = 'pending' RETURNING id, backfill_id IS NOT NULL AS backfill`,
      [opts.id, pausedAt],
    );
    await enqueueDeliveryJobs(
      client,
      waiting.filter((r) => !r.backfill).map((r) => r.id),
    );
    // A backfill's deliveries go back on its lane, behind live traffic (docs/routing.md#backfill).
    await enqueueDeliveryJobs(
      client,
      waiting.filter((r) => r.backfill).map((r) => r.id),
      { lane: "deliverBackfill" },
    );
    await audit(client, opts, "destination.resume", { before: pausedAt.toISOString(), after: null });
    return waiting.length;
  });
  if (resent > 0) wakeWorkers("deliver");
  return getDestination(opts);
}

const audit = (client: Parameters<typeof recordAudit>[0], opts: Change, action: string, pausedAt: { before: unknown; after: unknown }) =>
  recordAudit(client, {
    workspaceId: opts.workspaceId,
    actor: opts.actor,
    action,
    resourceType: "destination",
    resourceId: opts.id,
    changes: { pausedAt },
  });
