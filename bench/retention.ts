/**
 * npm run bench:retention — what the retention job's batched deletes cost, against a ceiling measured
 * in the same run: one unbounded DELETE of the same rows (the fastest way to delete them, and the one
 * that holds its locks and builds its WAL for the whole table at once).
 *
 * N attempt rows (default 300,000; ~1 KB each, as real attempts with their bodies) are written with
 * started_at spread over 60 days, so half are past a 30-day retention. Run 1: pruneExpiredData in
 * batches of 5,000 (rows/s, and the longest single batch = the longest any lock is held). Run 2: the
 * same data again, one DELETE. Env: BENCH_ROWS.
 */
import type pg from "pg";
import { BATCH_SIZE, pruneExpiredData } from "../lib/maintenance/retention";
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { printResult, runBench, throughputRatio } from "./lib/result";
import { benchDatabase } from "./lib/database";

const ROWS = Number(process.env.BENCH_ROWS ?? 300_000);

async function seed(db: pg.Pool, workspaceId: string, destinationId: string) {
  await db.query("TRUNCATE attempts");
  const body = JSON.stringify({
    type: "track",
    event: "Order Completed",
    properties: { total: 42.5, items: Array.from({ length: 8 }, (_, i) => ({ sku: `sku-${i}`, qty: 1 })) },
    context: { library: { name: "analytics-go", version: "3" } },
  });
  for (let done = 0; done < ROWS; done += 50_000) {
    await db.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number, started_at, duration_ms,
                             request_headers, request_body, response_status, response_body, outcome)
       SELECT $1, gen_random_uuid(), $2, gen_random_uuid(), 'm-' || g, 'track', 'https://hooks.example.com/in', 1,
              now() - interval '60 days' + (g::float8 / $4) * interval '60 days', 12,
              '{"content-type":"application/json","user-agent":"Eventrail.io/1.0"}', $3, 200, 'ok', 'success'
         FROM generate_series($5::int, $6::int) g`,
      [workspaceId, destinationId, body, ROWS, done, Math.min(ROWS, done + 50_000) - 1],
    );
  }
  await db.query("VACUUM ANALYZE attempts");
}

async function main() {
  const { url, db, close } = await benchDatabase();
  try {
    const workspaceId = await insertWorkspace(url);
    const destinationId = await insertDestination(url, { workspaceId, urls: ["https://hooks.example.com/in"] });
    const size = async () => (await db.query<{ s: string }>("SELECT pg_size_pretty(pg_total_relation_size('attempts')) AS s")).rows[0].s;

    await seed(db, workspaceId, destinationId);
    console.log(`[bench:retention] ${ROWS} attempts over 60 days (${await size()} with indexes); deleting those older than 30 days`);

    // Run 1: the retention job's batches, timed one by one through a wrapper around the pool.
    let longest = 0;
    const timed = {
      query: async (text: string, values: unknown[]) => {
        const t = performance.now();
        const r = await db.query(text, values);
        longest = Math.max(longest, performance.now() - t);
        return r;
      },
    } as unknown as pg.Pool;
    let t = performance.now();
    const r = await pruneExpiredData({ days: { messages: 30, attempts: 30, captures: 7 }, db: timed });
    const batchedMs = performance.now() - t;

    await seed(db, workspaceId, destinationId);
    t = performance.now();
    const one = await db.query("DELETE FROM attempts WHERE started_at < now() - interval '30 days'");
    const singleMs = performance.now() - t;

    const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
    console.log(
      `  batched (${BATCH_SIZE}/batch): ${r.attempts} rows in ${r.batches} statements, ${(batchedMs / 1000).toFixed(2)} s = ${rate(r.attempts, batchedMs)} rows/s; longest statement ${Math.round(longest)} ms`,
    );
    console.log(
      `  ceiling (one DELETE):   ${one.rowCount} rows in ${(singleMs / 1000).toFixed(2)} s = ${rate(one.rowCount ?? 0, singleMs)} rows/s; one statement holding its locks for ${Math.round(singleMs)} ms`,
    );
    printResult("retention", throughputRatio(rate(r.attempts, batchedMs), rate(one.rowCount ?? 0, singleMs)), {
      rows_per_s: rate(r.attempts, batchedMs),
      ceiling_rows_per_s: rate(one.rowCount ?? 0, singleMs),
      longest_statement_ms: Math.round(longest),
    });
  } finally {
    await close();
  }
}

runBench(main);
