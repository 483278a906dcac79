import "server-only";
import type pg from "pg";
import { createDeliveries } from "../delivery/enqueue";
import { type AudienceIdentifies, insertAudienceIdentifies } from "../tracking/produce";
import type { CompiledQuery } from "./compile";
import { chunkRanges, destinationsFor, type SyncPlan } from "./plan";

/**
 * One lane of a sync (docs/audiences.md#how-a-sync-runs): the users whose id hashes to `lane` of
 * `lanes`, on its own connection, so that a large sync uses more than one core. A lane
 *   1. computes the membership into a temp table with the compiled condition (INSERT … SELECT);
 *   2. diffs it against audience_members in one hash full join, numbered in user id (byte) order:
 *      entered, exited, and — when a destination gets the full membership — stayed;
 *   3. walks the diff in chunks, each one transaction: identify messages (origin 'audience',
 *      origin_ref = sync id) made by the producer (produce.ts insertAudienceIdentifies), their deliveries and `deliver` jobs through
 *      createDeliveries — the normal delivery path —, the membership change, and the lane's
 *      progress: counts and done_through[lane], the last user id the chunk covered.
 * Users after `after` only: a resumed sync skips what the lane already committed.
 */

/**
 * Session settings of the compute step: the membership query and the diff hash and sort a few
 * hundred thousand user ids, which spill to disk at the default 4 MB; and JIT compiling those
 * plans costs more (0.7 s at 1 M profiles) than it saves. With more than one lane the lanes are
 * the parallelism: parallel workers on top would only contend for the same cores.
 */
const computeSettings = (lanes: number) =>
  `SET LOCAL work_mem = '64MB'; SET LOCAL jit = off${lanes > 1 ? "; SET LOCAL max_parallel_workers_per_gather = 0" : ""}`;

/**
 * The lane a user belongs to: a hash of the user id, so lanes are even whatever the ids look like.
 * No filter at all in one lane: the planner cannot estimate it, and took a slower diff plan for it.
 */
const inLane = (column: string, lanes: number, lane: number) =>
  lanes === 1 ? "true" : `(hashtext(${column}) & 2147483647) % ${Number(lanes)} = ${Number(lane)}`;

export async function inTransaction<T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
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

export type LaneCounts = { members: number; entered: number; exited: number; stayed: number };

/** Steps 1–2: the lane's membership (all of it: `members`) and its diff after `after`, in temp tables. */
export async function computeLane(
  client: pg.PoolClient,
  opts: { audienceId: string; query: CompiledQuery; lane: number; lanes: number; after: string | null; withStayed: boolean },
): Promise<LaneCounts> {
  return inTransaction(client, async () => {
    await client.query(computeSettings(opts.lanes));
    await client.query(`DROP TABLE IF EXISTS pg_temp.audience_computed, pg_temp.audience_changes`);
    await client.query(`CREATE TEMP TABLE audience_computed (user_id text NOT NULL)`);
    const computed = await client.query(
      `INSERT INTO audience_computed (user_id) SELECT m.user_id FROM (${opts.query.text}) m WHERE ${inLane("m.user_id", opts.lanes, opts.lane)}`,
      opts.query.values,
    );
    await client.query(`ANALYZE audience_computed`);
    // One pass over both sets; byte order ("C") so done_through compares the same way everywhere.
    await client.query(
      `CREATE TEMP TABLE audience_changes AS
       SELECT (row_number() OVER (ORDER BY x.user_id COLLATE "C"))::int AS seq, x.user_id, x.change FROM (
         SELECT coalesce(c.user_id, m.user_id) AS user_id,
                CASE WHEN m.user_id IS NULL THEN 'entered' WHEN c.user_id IS NULL THEN 'exited' ELSE 'stayed' END AS change
         FROM (SELECT user_id FROM audience_computed WHERE $2::text IS NULL OR user_id COLLATE "C" > $2) c
         FULL JOIN (SELECT user_id FROM audience_members WHERE audience_id = $1 AND ${inLane("user_id", opts.lanes, opts.lane)}
                      AND ($2::text IS NULL OR user_id COLLATE "C" > $2)) m
           ON m.user_id = c.user_id
         WHERE c.user_id IS NULL OR m.user_id IS NULL OR $3::boolean) x`,
      [opts.audienceId, opts.after, opts.withStayed],
    );
    await client.query(`CREATE UNIQUE INDEX ON audience_changes (seq)`);
    const { rows } = await client.query<Omit<LaneCounts, "members">>(
      `SELECT count(*) FILTER (WHERE change = 'entered')::int AS entered, count(*) FILTER (WHERE change = 'exited')::int AS exited,
              count(*) FILTER (WHERE change = 'stayed')::int AS stayed FROM audience_changes`,
    );
    return { members: computed.rowCount ?? 0, ...rows[0] };
  });
}

export type SendContext = AudienceIdentifies & {
  audienceId: string;
  plan: Pick<SyncPlan, "full" | "changes">;
  chunkSize: number;
};

/** Step 3: sends the lane's diff, chunk by chunk. Returns what this run sent and moved. */
export async function sendLane(
  client: pg.PoolClient,
  ctx: SendContext,
  lane: { index: number; rows: number },
): Promise<{ sent: number; added: number; removed: number }> {
  const { plan } = ctx;
  // Who needs a message at all; `stayed` rows exist only when some destination gets everyone.
  const changesToSend = (["entered", "exited", "stayed"] as const).filter((c) => destinationsFor(plan, c).length > 0);
  const out = { sent: 0, added: 0, removed: 0 };
  for (const [from, to] of chunkRanges(lane.rows, ctx.chunkSize)) {
    await inTransaction(client, async () => {
      // The identifies and their ids; each comes back with its user's change, so its deliveries go to
      // the destinations that change is for.
      const rows = await insertAudienceIdentifies(client, ctx, { from, to, changes: changesToSend });
      const deliveries = rows.flatMap((r) =>
        destinationsFor(plan, r.change).map((d) => ({ workspaceId: ctx.workspaceId, messageRowId: r.id, destinationId: d })),
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
        [ctx.audienceId, from, to],
      );
      await client.query(
        `UPDATE audience_syncs SET sent = sent + $2, entered = entered + $3, exited = exited + $4, done_through[$5] = $6 WHERE id = $1`,
        [ctx.syncId, deliveries.length, moved[0].added, moved[0].removed, lane.index + 1, moved[0].last],
      );
      out.sent += deliveries.length;
      out.added += moved[0].added;
      out.removed += moved[0].removed;
    });
  }
  return out;
}
