/**
 * `npm run bench:record-cost`: Postgres and Node CPU per 1,000 deliveries of the worker's two
 * statements alone — the batch load (lib/delivery/load.ts) and the recording (lib/delivery/record.ts)
 * — one 500-delivery batch at a time on a fresh database, with no HTTP and no other work: a steadier
 * measure than bench:deliver's (whose CPU per delivery moves with the machine's load, as slow rounds
 * take the late path), for trying a lever before it becomes a migration (BENCH_SETUP_SQL).
 * Env: RECORD_DELIVERIES (20,000), BENCH_SETUP_SQL, RECORD_ROUNDS (3: the whole set is recorded
 * this many times, each time on fresh deliveries).
 */
import pg from "pg";
import { createTestDatabase } from "../test/harness/pg";
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { seedMessages } from "../test/harness/delivery/seed";
import { measureCpu } from "./cpu";

const N = Number(process.env.RECORD_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.RECORD_ROUNDS ?? 3);
const BATCH = 500;

async function main() {
  const database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  const { loadDueDeliveries } = await import("../lib/delivery/load");
  const { recordRound } = await import("../lib/delivery/record");
  const { answeredAttempt, orderCompleted } = await import("./answered-attempt");
  const db = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    if (process.env.BENCH_SETUP_SQL) await db.query(process.env.BENCH_SETUP_SQL);
    const workspaceId = await insertWorkspace(database.url);
    const destinationId = await insertDestination(database.url, {
      workspaceId,
      urls: ["http://127.0.0.1:9/hook"],
      sharedSecret: "bench-secret",
    });
    const load = { pgMs: 0, nodeMs: 0 };
    const record = { pgMs: 0, nodeMs: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const messages = Array.from({ length: N }, (_, i) => orderCompleted(i, `r${round}-${i}`));
      const { deliveryIds } = await seedMessages(database.url, { workspaceId, destinationIds: [destinationId], messages });
      await db.query("VACUUM ANALYZE deliveries, messages");
      for (let i = 0; i < deliveryIds.length; i += BATCH) {
        const ids = deliveryIds.slice(i, i + BATCH);
        let stop = await measureCpu(db, null);
        const { deliveries } = await loadDueDeliveries(db, ids);
        let use = await stop();
        load.pgMs += use.pgMs;
        load.nodeMs += use.benchMs;
        stop = await measureCpu(db, null);
        const now = new Date();
        const attempts = deliveries.map((d) => answeredAttempt(d, now));
        const updates = deliveries.map((d) => ({
          id: d.id,
          state: "delivered" as const,
          pending_urls: [],
          attempt_count: 1,
          first_attempt_at: now.toISOString(),
          last_attempt_at: now.toISOString(),
          next_attempt_at: null,
          last_error: null,
          last_status: 200,
          delivered_at: now.toISOString(),
        }));
        await recordRound(db, attempts, updates);
        use = await stop();
        record.pgMs += use.pgMs;
        record.nodeMs += use.benchMs;
      }
    }
    const per = (ms: number) => ((ms / (N * ROUNDS)) * 1000).toFixed(1);
    await db.query("SELECT pg_stat_force_next_flush()");
    const hot = (
      await db.query(`SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'deliveries'`)
    ).rows[0];
    console.log(`[bench] ${N * ROUNDS} deliveries in batches of ${BATCH}; delivery updates ${hot.upd}, of which HOT ${hot.hot}`);
    console.log(
      `[bench] CPU per 1,000 deliveries: load Postgres ${per(load.pgMs)} ms + node ${per(load.nodeMs)} ms (incl. the measurement's own queries)`,
    );
    console.log(`[bench] CPU per 1,000 deliveries: build + record Postgres ${per(record.pgMs)} ms + node ${per(record.nodeMs)} ms`);
    console.log(`RESULT record-cost pg_ms_per_1000=${per(load.pgMs + record.pgMs)} node_ms_per_1000=${per(load.nodeMs + record.nodeMs)}`);
  } finally {
    await db.end();
    const { closeRuntime } = await import("../lib/platform/runtime");
    await closeRuntime();
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
