import "server-only";
import type pg from "pg";
import { pool } from "../platform/db";
import { logger } from "../platform/logger";
import { createDeliveries } from "../delivery/enqueue";
import { compileAudienceQuery } from "./compile";
import { conditionSchema } from "./condition";
import { chunkRanges, destinationsFor, planAudienceSync, type MemberChange, type SyncDestination } from "./plan";
import type { SyncStatus } from "./contract";

/**
 * One sync of one audience, in the database (docs/audiences.md#how-a-sync-runs):
 *   1. lock the audience (session advisory lock): two syncs of one audience never overlap;
 *   2. compute the membership into a temp table with the compiled condition (INSERT … SELECT);
 *   3. diff it against audience_members in one hash full join, numbered in user id (byte) order:
 *      entered, exited, and — when a destination gets the full membership — stayed;
 *   4. walk the diff in chunks, each one transaction: identify messages (origin 'audience',
 *      origin_ref = sync id) made with INSERT … SELECT, their deliveries and `deliver` jobs through
 *      createDeliveries — the normal delivery path —, the membership change, and the sync's
 *      progress: counts and `done_through`, the last user id the chunk covered.
 * A sync that dies half-way is resumed by its retry (same sync id): it recomputes the diff for the
 * users after `done_through` only, with the destinations it fixed when it started, so every user
 * gets exactly one identify per destination from it — none lost, none sent twice.
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

/**
 * A UUIDv7 (RFC 9562) made of 16 random bytes (`random`, a bytea) whose first 48 bits become the
 * Unix time in ms. A sync writes 100 000s of messages at once; ids that ascend with time land on
 * the right edge of messages' B-trees (the primary key, (source_id, message_id)) instead of on a
 * random page each, which outgrew shared_buffers at 1 M profiles and cost a full-page WAL image per
 * row (docs/audiences.md#cost). Postgres 18's uuidv7() makes the same.
 */
export const uuidv7 = (random: string) =>
  `encode(set_byte(overlay(${random} PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 6, (get_byte(${random}, 6) & 15) | 112), 'hex')::uuid`;

/**
 * Session settings of the compute step: the membership query and the diff hash and sort a few
 * hundred thousand user ids, which spill to disk at the default 4 MB; and JIT compiling those
 * plans costs more (0.7 s at 1 M profiles) than it saves.
 */
const COMPUTE_SETTINGS = `SET LOCAL work_mem = '64MB'; SET LOCAL jit = off`;

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

  // The sync row: the queued one (resumed after done_through when a retry runs it again) or a new one.
  const { rows: syncRows } = await client.query<{ id: string; done_through: string | null; full_destination_ids: string[] | null }>(
    `INSERT INTO audience_syncs (id, audience_id, status, initial, trigger, started_at)
     VALUES (coalesce($1::uuid, gen_random_uuid()), $2, 'running', $3, $4, now())
     ON CONFLICT (id) DO UPDATE SET status = 'running', initial = EXCLUDED.initial, error = NULL, finished_at = NULL
     RETURNING id, done_through, full_destination_ids::text[]`,
    [opts.syncId ?? null, audienceId, initial, opts.trigger ?? "manual"],
  );
  const syncId = syncRows[0].id;
  const after = syncRows[0].done_through;

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
  const sendsFull = destinations.some((d) => d.syncedAt === null);

  const q = compileAudienceQuery(condition, { workspaceId: audience.workspace_id, sourceIds: audience.source_ids });
  const { members, entered, exited, stayed } = await inTransaction(client, async () => {
    await client.query(COMPUTE_SETTINGS);
    await client.query(`DROP TABLE IF EXISTS pg_temp.audience_computed, pg_temp.audience_changes`);
    await client.query(`CREATE TEMP TABLE audience_computed (user_id text NOT NULL)`);
    const computed = await client.query(`INSERT INTO audience_computed (user_id) SELECT m.user_id FROM (${q.text}) m`, q.values);
    await client.query(`ANALYZE audience_computed`);
    // One pass over both sets; byte order ("C") so done_through compares the same way everywhere.
    await client.query(
      `CREATE TEMP TABLE audience_changes AS
       SELECT (row_number() OVER (ORDER BY x.user_id COLLATE "C"))::int AS seq, x.user_id, x.change FROM (
         SELECT coalesce(c.user_id, m.user_id) AS user_id,
                CASE WHEN m.user_id IS NULL THEN 'entered' WHEN c.user_id IS NULL THEN 'exited' ELSE 'stayed' END AS change
         FROM (SELECT user_id FROM audience_computed WHERE $2::text IS NULL OR user_id COLLATE "C" > $2) c
         FULL JOIN (SELECT user_id FROM audience_members WHERE audience_id = $1 AND ($2::text IS NULL OR user_id COLLATE "C" > $2)) m
           ON m.user_id = c.user_id
         WHERE c.user_id IS NULL OR m.user_id IS NULL OR $3::boolean) x`,
      [audienceId, after, sendsFull],
    );
    await client.query(`CREATE UNIQUE INDEX ON audience_changes (seq)`);
    const { rows: counted } = await client.query<{ entered: number; exited: number; stayed: number }>(
      `SELECT count(*) FILTER (WHERE change = 'entered')::int AS entered, count(*) FILTER (WHERE change = 'exited')::int AS exited,
              count(*) FILTER (WHERE change = 'stayed')::int AS stayed FROM audience_changes`,
    );
    return { members: computed.rowCount ?? 0, ...counted[0] };
  });
  // Counts of this run: a resumed sync plans only what is left after done_through.
  const plan = planAudienceSync(destinations, { members: entered + stayed, entered, exited });
  // A resumed sync keeps what its earlier attempt already sent in `sent`; `total` grows by what is left.
  await client.query(
    `UPDATE audience_syncs SET total = sent + $2, size = $3, full_destination_ids = coalesce(full_destination_ids, $4::uuid[]) WHERE id = $1`,
    [syncId, plan.total, members, plan.full],
  );
  const computeMs = performance.now() - started;

  const sendStarted = performance.now();
  const now = new Date().toISOString();
  // Who needs a message at all; `stayed` rows exist only when some destination gets everyone.
  const changesToSend = (["entered", "exited", "stayed"] as const).filter((c) => destinationsFor(plan, c).length > 0);
  // Every identify names its audience (docs/webhooks.md#payloads): keys in alphabetical order, which
  // is also the order jsonb keeps them in, so the bytes sent do not depend on how payloads are stored.
  const context = JSON.stringify({ audience: { id: audienceId, key: audience.property_name, name: audience.name } });
  let sent = 0;
  let added = 0;
  let removed = 0;
  for (const [from, to] of chunkRanges(entered + exited + stayed, chunk)) {
    await inTransaction(client, async () => {
      // The message rows and their ids in one statement; the ids come back with each user's change
      // so the deliveries go to the destinations that change is for.
      const { rows } = await client.query<{ id: string; change: MemberChange }>(
        `WITH c AS MATERIALIZED (
           SELECT ${uuidv7("r.a")} AS id, ${uuidv7("r.b")}::text AS mid, r.user_id, r.change
           FROM (SELECT uuid_send(gen_random_uuid()) AS a, uuid_send(gen_random_uuid()) AS b, t.user_id, t.change
                 FROM audience_changes t WHERE t.seq > $6 AND t.seq <= $7 AND t.change = ANY($8::text[]) ORDER BY t.seq) r
         ), inserted AS (
           INSERT INTO messages (id, workspace_id, origin, origin_ref, message_id, type, user_id, timestamp, received_at, payload)
           SELECT c.id, $1::uuid, 'audience', $2::text, c.mid, 'identify', c.user_id, $3::timestamptz, $3::timestamptz,
                  jsonb_build_object('type', 'identify', 'userId', c.user_id, 'traits', jsonb_build_object($4::text, c.change <> 'exited'),
                                     'messageId', c.mid, 'timestamp', $5::text, 'receivedAt', $5::text, 'context', $9::jsonb)
           FROM c
         )
         SELECT c.id, c.change FROM c`,
        [audience.workspace_id, syncId, now, audience.property_name, now, from, to, changesToSend, context],
      );
      const deliveries = rows.flatMap((r) =>
        destinationsFor(plan, r.change).map((d) => ({ workspaceId: audience.workspace_id, messageRowId: r.id, destinationId: d })),
      );
      await createDeliveries(client, deliveries);
      const { rows: moved } = await client.query<{ added: number; removed: number; last: string }>(
        `WITH added AS (
           INSERT INTO audience_members (audience_id, user_id, since)
           SELECT $1, t.user_id, now() FROM audience_changes t WHERE t.seq > $2 AND t.seq <= $3 AND t.change = 'entered'
           ON CONFLICT DO NOTHING RETURNING 1
         ), removed AS (
           DELETE FROM audience_members m USING audience_changes t
           WHERE m.audience_id = $1 AND m.user_id = t.user_id AND t.seq > $2 AND t.seq <= $3 AND t.change = 'exited' RETURNING 1
         )
         SELECT (SELECT count(*) FROM added)::int AS added, (SELECT count(*) FROM removed)::int AS removed,
                (SELECT t.user_id FROM audience_changes t WHERE t.seq = $3) AS last`,
        [audienceId, from, to],
      );
      await client.query(
        `UPDATE audience_syncs SET sent = sent + $2, entered = entered + $3, exited = exited + $4, done_through = $5 WHERE id = $1`,
        [syncId, deliveries.length, moved[0].added, moved[0].removed, moved[0].last],
      );
      sent += deliveries.length;
      added += moved[0].added;
      removed += moved[0].removed;
    });
  }
  const enqueueMs = performance.now() - sendStarted;

  await inTransaction(client, async () => {
    if (plan.full.length > 0)
      await client.query(`UPDATE audience_destinations SET synced_at = now() WHERE audience_id = $1 AND destination_id = ANY($2::uuid[])`, [
        audienceId,
        plan.full,
      ]);
    await client.query(`UPDATE audience_syncs SET status = 'completed', finished_at = now() WHERE id = $1`, [syncId]);
    await client.query(`UPDATE audiences SET last_synced_at = now() WHERE id = $1`, [audienceId]);
  });
  logger().info(
    { audienceId, syncId, members, entered, exited, sent, computeMs: Math.round(computeMs), enqueueMs: Math.round(enqueueMs) },
    "audience synced",
  );
  return { syncId, status: "completed", size: members, entered: added, exited: removed, sent, computeMs, enqueueMs };
}
