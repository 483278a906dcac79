/**
 * npm run bench:rate-limit — what a destination's rate limit costs a batch (docs/webhooks.md#rate-limits,
 * docs/decisions/0120-rate-limits.md): the take statement (lib/delivery/rate-limit.ts) that every
 * batch with deliveries to a rate-limited destination runs once, from BENCH_CLIENTS (8: 2 workers ×
 * 4 batches) connections at once on ONE destination's row, as workers sharing a limit do.
 * 1. per second only: TAKE with `want` BENCH_WANT (100: a job's deliveries), a limit that never binds;
 * 2. per second and concurrency: the take, then the release of its leases (two statements);
 * 3. ceiling: the least a take shared through Postgres could be, a one-row UPDATE of a counter by
 *    primary key, from the same connections on the same row.
 * Prints each one's mean time per statement and per delivery; ratio = ceiling / take (1).
 * BENCH_TAKES (2,000 per client).
 */
import pg from "pg";
import { RELEASE, TAKE } from "../lib/delivery/rate-limit";
import { createTestDatabase } from "../test/harness/pg";
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { costRatio, printResult, runBench } from "./lib/result";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const TAKES = Number(process.env.BENCH_TAKES ?? 2_000);
const WANT = Number(process.env.BENCH_WANT ?? 100);

/** Runs `step` TAKES times on each of CLIENTS connections at once; mean ms per step. */
async function timed(pool: pg.Pool, step: (c: pg.PoolClient) => Promise<void>): Promise<number> {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => pool.connect()));
  for (const c of clients) for (let i = 0; i < 50; i++) await step(c); // warm: plans prepared, pages cached
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < TAKES; i++) await step(c);
    }),
  );
  const ms = performance.now() - t0;
  for (const c of clients) c.release();
  return ms / (TAKES * CLIENTS);
}

async function main() {
  const db = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: CLIENTS });
  try {
    const workspaceId = await insertWorkspace(db.url);
    const destinationId = await insertDestination(db.url, { workspaceId, urls: ["http://127.0.0.1:9/hook"] });
    await pool.query(
      `INSERT INTO rate_limit_state (destination_id, tokens, refilled_at, booked_until, lease_expiry, lease_count) VALUES ($1, 1e9, now(), now(), '{}', '{}')`,
      [destinationId],
    );
    await pool.query(`CREATE TABLE bench_counter (id uuid PRIMARY KEY, n bigint NOT NULL)`);
    await pool.query(`INSERT INTO bench_counter VALUES ($1, 0)`, [destinationId]);
    const take = (conc: number | null) => (c: pg.PoolClient) =>
      c
        .query({
          name: `take-${conc}`,
          text: TAKE.text,
          values: TAKE.values({
            x: [{ destinationId, want: WANT, limit: { perSecond: 1_000_000_000, concurrency: conc }, leaseTtlS: 30 }],
          }),
        })
        .then(() => {});

    const ceiling = await timed(pool, (c) =>
      c.query({ name: "ceiling", text: "UPDATE bench_counter SET n = n + $2 WHERE id = $1", values: [destinationId, WANT] }).then(() => {}),
    );
    const perSecond = await timed(pool, take(null));
    const withLeases = await timed(pool, async (c) => {
      await take(1_000_000)(c);
      await c.query({ name: "release", text: RELEASE.text, values: RELEASE.values({ x: [[destinationId, WANT]] }) });
    });
    const us = (ms: number) => ((ms * 1000) / WANT).toFixed(1);
    console.log(`[bench] ${CLIENTS} connections × ${TAKES} statements on one destination's row, ${WANT} deliveries per take`);
    console.log(`[bench] ceiling (one-row counter UPDATE): ${ceiling.toFixed(3)} ms per statement`);
    console.log(`[bench] take, per second only: ${perSecond.toFixed(3)} ms per batch = ${us(perSecond)} µs per delivery`);
    console.log(`[bench] take + release, with concurrency: ${withLeases.toFixed(3)} ms per batch = ${us(withLeases)} µs per delivery`);
    printResult("rate-limit", costRatio(perSecond, ceiling), {
      take_ms: perSecond,
      take_release_ms: withLeases,
      ceiling_ms: ceiling,
      us_per_delivery: (perSecond * 1000) / WANT,
      us_per_delivery_leases: (withLeases * 1000) / WANT,
    });
  } finally {
    await pool.end();
    await db.drop();
  }
}

runBench(main);
