import "server-only";
import type pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { pool, withTransaction } from "../platform/db";
import { recordAudit, systemActor } from "../audit/record";
import { requestDeliveries } from "../delivery/enqueue";
import { loadBackfillRow, pendingOf, storedScope, type BackfillRow } from "./backfills";
import { firstCursor, readPage, type Cursor } from "./pages";

/**
 * A backfill's runner (docs/routing.md#backfill), the `backfill` queue's job: it queues the
 * backfill's pages as their deliveries settle, so that at most IN_FLIGHT of them wait at once, on
 * the backfill lane (policy.ts LANES.deliverBackfill): live deliveries never queue behind a backfill,
 * and a destination's rate limit, a pause or a slow endpoint hold the backfill back rather than pile
 * up its deliveries. Each page is one transaction under the backfill's row lock: its deliveries, their
 * jobs and the cursor commit together, so a runner killed mid-page resumes from the last committed
 * cursor (the job is retried when its heartbeat lapses), and the unique
 * deliveries(backfill_id, message_row_id) holds a call to one delivery per backfill whatever happens.
 * A job runs for RUN_BUDGET_MS at most and then hands over to its next one, so a worker's graceful
 * stop never waits long for it.
 */

/** Calls read per page. */
export const PAGE_SIZE = 500;
/** The next page is queued only while fewer than this many of the backfill's deliveries are pending. */
export const IN_FLIGHT = 1_000;
/** How long one job runs before handing over to the next (under the worker's 20 s graceful stop). */
export const RUN_BUDGET_MS = 10_000;
/** How often a waiting runner looks at its pending deliveries again. */
const LOOK_MS = 200;

export type RunOutcome = "ended" | "again";

/** Runs a backfill for a while: "again" when its next job should carry on, "ended" when it is over (or gone). */
export async function runBackfill(opts: { backfillId: string; budgetMs?: number; signal?: AbortSignal }): Promise<RunOutcome> {
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  for (;;) {
    const row = await loadBackfillRow(pool(), opts.backfillId);
    if (row?.state !== "running") return "ended";
    const pending = await pendingOf(pool(), row.id);
    if (row.exhausted) {
      if (pending === 0) {
        await finish(row);
        return "ended";
      }
    } else if (pending + PAGE_SIZE <= IN_FLIGHT) {
      if ((await queuePage(row.id)) === "ended") return "ended";
      continue;
    }
    if (Date.now() >= deadline || opts.signal?.aborted) return "again";
    await sleep(LOOK_MS);
  }
}

/** Queues the next page: its deliveries, their jobs and the cursor, in one transaction under the backfill's row lock. */
async function queuePage(backfillId: string): Promise<number | "ended"> {
  return withTransaction(async (client) => {
    const row = await loadBackfillRow(client, backfillId, true);
    // Cancelled (or ended) since it was read: cancel takes effect here, under the same lock.
    if (row?.state !== "running") return "ended";
    const scope = await storedScope(client, row, new Date());
    if (!scope) {
      await end(client, row, "failed", "the destination was deleted");
      return "ended";
    }
    const cursor = (row.cursor as Cursor | null) ?? firstCursor(scope);
    const page = await readPage(client, scope, cursor, PAGE_SIZE);
    const ids = await createBackfillDeliveries(client, row, page.messageRowIds);
    await client.query("UPDATE backfills SET cursor = $2, exhausted = $3, queued = queued + $4, updated_at = now() WHERE id = $1", [
      row.id,
      page.next === null ? null : JSON.stringify(page.next),
      page.next === null,
      ids.length,
    ]);
    return ids.length;
  });
}

/**
 * The page's deliveries, marked with the backfill, and their jobs on the backfill lane. Without
 * `resend` a call that has a delivery to the destination by now gets none (replay_number 0 is taken);
 * with it, the next replay number. Either way a call this backfill queued before is skipped.
 */
async function createBackfillDeliveries(client: pg.PoolClient, row: BackfillRow, messageRowIds: string[]): Promise<string[]> {
  return requestDeliveries(
    client,
    messageRowIds.map((m) => ({ workspaceId: row.workspace_id, messageRowId: m, destinationId: row.destination_id, backfillId: row.id })),
    { conflict: row.resend ? "backfill" : "pair", nextReplayNumber: row.resend, lane: "deliverBackfill" },
  );
}

/** Every page queued and every delivery settled: finished, written to the audit log as the system's doing. */
async function finish(row: BackfillRow): Promise<void> {
  await withTransaction(async (client) => {
    const locked = await loadBackfillRow(client, row.id, true);
    if (locked?.state !== "running") return;
    await end(client, locked, "finished", null);
  });
}

async function end(client: pg.PoolClient, row: BackfillRow, state: "finished" | "failed", why: string | null): Promise<void> {
  await client.query("UPDATE backfills SET state = $2, done = queued, ended_at = now(), updated_at = now() WHERE id = $1", [row.id, state]);
  await recordAudit(client, {
    workspaceId: row.workspace_id,
    actor: systemActor("backfill"),
    action: state === "finished" ? "backfill.finish" : "backfill.fail",
    resourceType: "destination",
    resourceId: row.destination_id,
    changes: {
      backfill: {
        before: { id: row.id, state: "running" },
        after: { id: row.id, state, queued: row.queued, total: row.total, ...(why ? { reason: why } : {}) },
      },
    },
  });
}
