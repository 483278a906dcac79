import "server-only";
import type pg from "pg";
import { pool } from "../platform/db";
import { logger } from "../platform/logger";
import { compileAudienceQuery } from "./compile";
import { conditionSchema } from "./condition";
import { planAudienceSync, type SyncDestination } from "./plan";
import { computeLane, inTransaction, type SendContext, sendLane } from "./sync-lane";
import type { SyncStatus } from "./contract";

/**
 * One sync of one audience, in the database (docs/audiences.md#how-a-sync-runs):
 *   1. lock the audience (session advisory lock): two syncs of one audience never overlap;
 *   2. fix the plan: which destinations get the full membership, which only the changes;
 *   3. run SYNC_LANES lanes at once, each on its own connection (sync-lane.ts): the users whose
 *      id hashes to the lane, computed, diffed and sent in chunks that commit the identifies, their
 *      deliveries and jobs, the membership change and the lane's done_through together;
 *   4. mark the full-membership destinations synced, the sync completed.
 * A sync that dies half-way is resumed by its retry (same sync id): each lane recomputes its diff
 * for the users after its done_through only, with the destinations the sync fixed when it started,
 * so every user gets exactly one identify per destination from it — none lost, none sent twice.
 */
export const SYNC_CHUNK = 5_000;
/**
 * Lanes of a sync that sends the full membership: the writes of an identify (message, delivery,
 * membership) keep one backend busy, so such a sync over 100 000s of users uses two. Each lane runs the membership query once, so a
 * sync that sends only changes runs in one (docs/audiences.md#cost).
 */
export const SYNC_LANES = 2;
const LOCK_CLASS = "eventrail:audience-sync";

export type SyncResult = {
  syncId: string | null;
  status: SyncStatus;
  size: number;
  entered: number;
  exited: number;
  sent: number;
  /** membership computed and diffed */
  computeMs: number;
  /** messages, deliveries and jobs written */
  enqueueMs: number;
};

/** Holds the audience's sync lock on `client` (a session lock: released by unlock or disconnect). */
export async function tryLockAudienceSync(client: pg.ClientBase, audienceId: string): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok`, [
    LOCK_CLASS,
    audienceId,
  ]);
  return rows[0].ok;
}

export async function unlockAudienceSync(client: pg.ClientBase, audienceId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_unlock(hashtext($1), hashtext($2))`, [LOCK_CLASS, audienceId]);
}

const skipped = (syncId: string | null): SyncResult => ({
  syncId,
  status: "skipped",
  size: 0,
  entered: 0,
  exited: 0,
  sent: 0,
  computeMs: 0,
  enqueueMs: 0,
});

type RunOptions = { audienceId: string; syncId?: string; trigger?: string; chunkSize?: number; lanes?: number };

/** Runs a sync (the one `syncId` names, queued by requestAudienceSync, or a new one). */
export async function runAudienceSync(opts: RunOptions): Promise<SyncResult> {
  const client = await pool().connect();
  let failure: Error | undefined;
  try {
    if (!(await tryLockAudienceSync(client, opts.audienceId))) {
      if (opts.syncId)
        await client.query(
          `UPDATE audience_syncs SET status = 'skipped', finished_at = now(), error = 'Another sync of this audience was running'
           WHERE id = $1 AND status = 'queued'`,
          [opts.syncId],
        );
      return skipped(opts.syncId ?? null);
    }
    try {
      return await syncLocked(client, opts);
    } finally {
      await unlockAudienceSync(client, opts.audienceId).catch(() => {});
    }
  } catch (err) {
    failure = err as Error;
    if (opts.syncId)
      await pool()
        .query(`UPDATE audience_syncs SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1`, [
          opts.syncId,
          failure.message.slice(0, 500),
        ])
        .catch(() => {});
    throw err;
  } finally {
    // A connection that failed mid-way is discarded (which also frees its lock and temp tables).
    client.release(failure);
  }
}

async function syncLocked(client: pg.PoolClient, opts: RunOptions): Promise<SyncResult> {
  const { audienceId } = opts;
  const { rows: found } = await client.query<{
    workspace_id: string;
    name: string;
    property_name: string;
    condition: unknown;
    last_synced_at: Date | null;
    source_ids: string[];
  }>(
    `SELECT a.workspace_id, a.name, a.property_name, a.condition, a.last_synced_at,
            ARRAY(SELECT x.source_id::text FROM audience_sources x WHERE x.audience_id = a.id) AS source_ids
     FROM audiences a WHERE a.id = $1`,
    [audienceId],
  );
  const audience = found[0];
  if (!audience) return skipped(opts.syncId ?? null); // deleted since it was queued
  const condition = conditionSchema.parse(audience.condition);
  const initial = audience.last_synced_at === null;

  // The sync row: the queued one (resumed after its lanes' done_through when a retry runs it again) or a new one.
  const { rows: syncRows } = await client.query<{
    id: string;
    done_through: (string | null)[] | null;
    full_destination_ids: string[] | null;
  }>(
    `INSERT INTO audience_syncs (id, audience_id, status, initial, trigger, started_at)
     VALUES (coalesce($1::uuid, gen_random_uuid()), $2, 'running', $3, $4, now())
     ON CONFLICT (id) DO UPDATE SET status = 'running', initial = EXCLUDED.initial, error = NULL, finished_at = NULL
     RETURNING id, done_through, full_destination_ids::text[]`,
    [opts.syncId ?? null, audienceId, initial, opts.trigger ?? "manual"],
  );
  const syncId = syncRows[0].id;
  const doneThrough = syncRows[0].done_through;

  const started = performance.now();
  const { rows: dests } = await client.query<{ id: string; synced_at: Date | null }>(
    `SELECT ad.destination_id AS id, ad.synced_at FROM audience_destinations ad JOIN destinations d ON d.id = ad.destination_id
     WHERE ad.audience_id = $1 AND d.enabled ORDER BY ad.destination_id`,
    [audienceId],
  );
  // A resumed sync keeps the full-membership destinations it started with: one connected since
  // then still has synced_at null and gets everyone at the next sync.
  const fixedFull = syncRows[0].full_destination_ids;
  const destinations = dests
    .filter((d) => fixedFull === null || d.synced_at !== null || fixedFull.includes(d.id))
    .map((d): SyncDestination => ({ id: d.id, syncedAt: d.synced_at }));
  const plan = planAudienceSync(destinations, { members: 0, entered: 0, exited: 0 });
  // One identify per member (a destination gets the full membership): lanes. Changes only: the
  // churn is small next to computing the membership, which each lane would do again.
  const lanes = doneThrough?.length ?? opts.lanes ?? (plan.full.length > 0 ? SYNC_LANES : 1);
  // The plan and the lanes are fixed at the first run; `total` restarts from what was sent, and
  // each lane adds what it has left (a resumed sync keeps what its earlier run sent in `sent`).
  await client.query(
    `UPDATE audience_syncs SET total = sent, size = 0, full_destination_ids = coalesce(full_destination_ids, $2::uuid[]),
       done_through = coalesce(done_through, array_fill(NULL::text, ARRAY[$3::int])) WHERE id = $1`,
    [syncId, plan.full, lanes],
  );

  const query = compileAudienceQuery(condition, { workspaceId: audience.workspace_id, sourceIds: audience.source_ids });
  const ctx: SendContext = {
    audienceId,
    workspaceId: audience.workspace_id,
    syncId,
    propertyName: audience.property_name,
    // Every identify names its audience (docs/webhooks.md#payloads): keys in alphabetical order.
    context: JSON.stringify({ audience: { id: audienceId, key: audience.property_name, name: audience.name } }),
    now: new Date().toISOString(),
    plan,
    chunkSize: opts.chunkSize ?? SYNC_CHUNK,
  };
  const runLane = async (lane: number) => {
    // The first lane runs on the sync's own connection (which holds the lock), the others on their own.
    const c = lane === 0 ? client : await pool().connect();
    let failure: Error | undefined;
    try {
      const counts = await computeLane(c, {
        audienceId,
        query,
        lane,
        lanes,
        after: doneThrough?.[lane] ?? null,
        withStayed: plan.full.length > 0,
      });
      const left = planAudienceSync(destinations, {
        members: counts.entered + counts.stayed,
        entered: counts.entered,
        exited: counts.exited,
      });
      await c.query(`UPDATE audience_syncs SET total = total + $2, size = size + $3 WHERE id = $1`, [syncId, left.total, counts.members]);
      const computeMs = performance.now() - started;
      const moved = await sendLane(c, ctx, { index: lane, rows: counts.entered + counts.exited + counts.stayed });
      return { counts, moved, computeMs };
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      if (!failure) await c.query(`DROP TABLE IF EXISTS pg_temp.audience_computed, pg_temp.audience_changes`);
      // A connection that failed mid-way is discarded (which also drops its temp tables).
      if (c !== client) c.release(failure);
    }
  };
  // Every lane runs to its end or its failure, so what each committed is recorded before a retry.
  const settled = await Promise.allSettled(Array.from({ length: lanes }, (_, lane) => runLane(lane)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  const done = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof runLane>>>).value);
  const sum = (f: (l: (typeof done)[number]) => number) => done.reduce((n, l) => n + f(l), 0);
  const computeMs = Math.max(...done.map((l) => l.computeMs));
  const enqueueMs = performance.now() - started - computeMs;

  await inTransaction(client, async () => {
    if (plan.full.length > 0)
      await client.query(`UPDATE audience_destinations SET synced_at = now() WHERE audience_id = $1 AND destination_id = ANY($2::uuid[])`, [
        audienceId,
        plan.full,
      ]);
    await client.query(`UPDATE audience_syncs SET status = 'completed', finished_at = now() WHERE id = $1`, [syncId]);
    await client.query(`UPDATE audiences SET last_synced_at = now() WHERE id = $1`, [audienceId]);
  });
  const result: SyncResult = {
    syncId,
    status: "completed",
    size: sum((l) => l.counts.members),
    entered: sum((l) => l.moved.added),
    exited: sum((l) => l.moved.removed),
    sent: sum((l) => l.moved.sent),
    computeMs,
    enqueueMs,
  };
  logger().info({ audienceId, lanes, ...result, computeMs: Math.round(computeMs), enqueueMs: Math.round(enqueueMs) }, "audience synced");
  return result;
}
