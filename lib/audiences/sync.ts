import "server-only";
import type pg from "pg";
import { pool } from "../platform/db";
import { logger } from "../platform/logger";
import { createDeliveries } from "../delivery/enqueue";
import { compileAudienceQuery } from "./compile";
import { conditionSchema } from "./condition";
import { chunkRanges, planAudienceSync, type SyncDestination } from "./plan";
import type { SyncStatus } from "./contract";

/**
 * One sync of one audience, in the database:
 *   1. lock the audience (session advisory lock): two syncs of one audience never overlap;
 *   2. compute the membership into a temp table with the compiled condition (INSERT … SELECT);
 *   3. diff it against audience_members with EXCEPT (entered → true, exited → false);
 *   4. in chunks, each one transaction: identify messages (origin 'audience', origin_ref = sync id)
 *      made with INSERT … SELECT, their deliveries and `deliver` jobs through createDeliveries —
 *      the normal delivery path — the membership change, and the sync's progress counts;
 *   5. then every member, `true`, to destinations that never had the audience (see plan.ts).
 * A chunk commits its messages together with the membership it reports, so a sync that dies
 * half-way is resumed by its retry: the next diff only holds what was not sent yet.
 */
export const SYNC_CHUNK = 5_000;
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

async function inTransaction<T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const r = await fn();
    await client.query("COMMIT");
    return r;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
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

type RunOptions = { audienceId: string; syncId?: string; trigger?: string; chunkSize?: number };

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
      await client.query(`DROP TABLE IF EXISTS pg_temp.audience_computed, pg_temp.audience_changes`).catch(() => {});
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
  const chunk = opts.chunkSize ?? SYNC_CHUNK;
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

  // The sync row: the queued one (reset when a retry resumes it) or a new one.
  const { rows: syncRows } = await client.query<{ id: string }>(
    `INSERT INTO audience_syncs (id, audience_id, status, initial, trigger, started_at)
     VALUES (coalesce($1::uuid, gen_random_uuid()), $2, 'running', $3, $4, now())
     ON CONFLICT (id) DO UPDATE SET status = 'running', initial = EXCLUDED.initial, error = NULL, finished_at = NULL
     RETURNING id`,
    [opts.syncId ?? null, audienceId, initial, opts.trigger ?? "manual"],
  );
  const syncId = syncRows[0].id;

  const started = performance.now();
  const q = compileAudienceQuery(condition, { workspaceId: audience.workspace_id, sourceIds: audience.source_ids });
  await client.query(`DROP TABLE IF EXISTS pg_temp.audience_computed, pg_temp.audience_changes`);
  await client.query(`CREATE TEMP TABLE audience_computed (seq int NOT NULL, user_id text NOT NULL)`);
  const computed = await client.query(
    `INSERT INTO audience_computed (seq, user_id) SELECT row_number() OVER (), m.user_id FROM (${q.text}) m`,
    q.values,
  );
  const members = computed.rowCount ?? 0;
  await client.query(`CREATE INDEX ON audience_computed (seq)`);
  await client.query(`ANALYZE audience_computed`);
  await client.query(
    `CREATE TEMP TABLE audience_changes AS
     SELECT (row_number() OVER ())::int AS seq, c.user_id, c.member FROM (
       SELECT e.user_id, true AS member FROM (SELECT user_id FROM audience_computed EXCEPT SELECT user_id FROM audience_members WHERE audience_id = $1) e
       UNION ALL
       SELECT x.user_id, false AS member FROM (SELECT user_id FROM audience_members WHERE audience_id = $1 EXCEPT SELECT user_id FROM audience_computed) x
     ) c`,
    [audienceId],
  );
  await client.query(`CREATE INDEX ON audience_changes (seq)`);
  const { rows: counted } = await client.query<{ entered: number; exited: number }>(
    `SELECT count(*) FILTER (WHERE member)::int AS entered, count(*) FILTER (WHERE NOT member)::int AS exited FROM audience_changes`,
  );
  const { entered, exited } = counted[0];
  const { rows: dests } = await client.query<{ id: string; synced_at: Date | null }>(
    `SELECT ad.destination_id AS id, ad.synced_at FROM audience_destinations ad JOIN destinations d ON d.id = ad.destination_id
     WHERE ad.audience_id = $1 AND d.enabled ORDER BY ad.destination_id`,
    [audienceId],
  );
  const plan = planAudienceSync(
    dests.map((d): SyncDestination => ({ id: d.id, syncedAt: d.synced_at })),
    { members, entered, exited },
  );
  // A resumed sync keeps what its earlier attempt already sent in `sent`; `total` grows by what is left.
  await client.query(`UPDATE audience_syncs SET total = sent + $2, size = $3 WHERE id = $1`, [syncId, plan.total, members]);
  const computeMs = performance.now() - started;

  const sendStarted = performance.now();
  const now = new Date().toISOString();
  let sent = 0;
  // Every identify names its audience (docs/webhooks.md#payloads): keys in alphabetical order, which
  // is also the order jsonb keeps them in, so the bytes sent do not depend on how payloads are stored.
  const context = JSON.stringify({ audience: { id: audienceId, key: audience.property_name, name: audience.name } });
  const identifies = async (table: "audience_computed" | "audience_changes", from: number, to: number, destinationIds: string[]) => {
    if (destinationIds.length === 0) return 0;
    const member = table === "audience_computed" ? "true" : "t.member";
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO messages (id, workspace_id, origin, origin_ref, message_id, type, user_id, timestamp, received_at, payload)
       SELECT c.id, $1::uuid, 'audience', $2::text, c.mid, 'identify', c.user_id, $3::timestamptz, $3::timestamptz,
              jsonb_build_object('type', 'identify', 'userId', c.user_id, 'traits', jsonb_build_object($4::text, c.member),
                                 'messageId', c.mid, 'timestamp', $5::text, 'receivedAt', $5::text, 'context', $8::jsonb)
       FROM (SELECT gen_random_uuid() AS id, gen_random_uuid()::text AS mid, t.user_id, ${member} AS member
             FROM ${table} t WHERE t.seq > $6 AND t.seq <= $7) c
       RETURNING id`,
      [audience.workspace_id, syncId, now, audience.property_name, now, from, to, context],
    );
    const deliveries = rows.flatMap((r) =>
      destinationIds.map((d) => ({ workspaceId: audience.workspace_id, messageRowId: r.id, destinationId: d })),
    );
    await createDeliveries(client, deliveries);
    return deliveries.length;
  };

  // First the changes, to the destinations that had the previous membership. Membership moves
  // with them chunk by chunk, so a retry after a crash sends only what was not sent.
  for (const [from, to] of chunkRanges(entered + exited, chunk)) {
    await inTransaction(client, async () => {
      const n = await identifies("audience_changes", from, to, plan.changes);
      const added = await client.query(
        `INSERT INTO audience_members (audience_id, user_id, since)
         SELECT $1, t.user_id, now() FROM audience_changes t WHERE t.seq > $2 AND t.seq <= $3 AND t.member ON CONFLICT DO NOTHING`,
        [audienceId, from, to],
      );
      const removed = await client.query(
        `DELETE FROM audience_members m USING audience_changes t
         WHERE m.audience_id = $1 AND m.user_id = t.user_id AND t.seq > $2 AND t.seq <= $3 AND NOT t.member`,
        [audienceId, from, to],
      );
      await client.query(`UPDATE audience_syncs SET sent = sent + $2, entered = entered + $3, exited = exited + $4 WHERE id = $1`, [
        syncId,
        n,
        added.rowCount ?? 0,
        removed.rowCount ?? 0,
      ]);
      sent += n;
    });
  }
  // Then the destinations that never had this audience: every member, `true`. A retry after a
  // crash here sends some of them `true` again (same state, harmless); they are marked last.
  if (plan.full.length > 0) {
    for (const [from, to] of chunkRanges(members, chunk)) {
      await inTransaction(client, async () => {
        const n = await identifies("audience_computed", from, to, plan.full);
        await client.query(`UPDATE audience_syncs SET sent = sent + $2 WHERE id = $1`, [syncId, n]);
        sent += n;
      });
    }
    await client.query(`UPDATE audience_destinations SET synced_at = now() WHERE audience_id = $1 AND destination_id = ANY($2::uuid[])`, [
      audienceId,
      plan.full,
    ]);
  }

  const enqueueMs = performance.now() - sendStarted;

  await inTransaction(client, async () => {
    await client.query(`UPDATE audience_syncs SET status = 'completed', finished_at = now() WHERE id = $1`, [syncId]);
    await client.query(`UPDATE audiences SET last_synced_at = now() WHERE id = $1`, [audienceId]);
  });
  logger().info(
    { audienceId, syncId, members, entered, exited, sent, computeMs: Math.round(computeMs), enqueueMs: Math.round(enqueueMs) },
    "audience synced",
  );
  return { syncId, status: "completed", size: members, entered, exited, sent, computeMs, enqueueMs };
}
