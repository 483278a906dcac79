/**
 * `npm run bench:record-cost`: Postgres and Node CPU per 1,000 deliveries of the worker's two
 * statements alone — the batch load (lib/delivery/load.ts) and the recording (lib/delivery/record.ts)
 * — one 500-delivery batch at a time on a fresh database, with no HTTP and no other work: a steadier
 * measure than bench:deliver's (whose CPU per delivery moves with the machine's load, as slow rounds
 * take the late path), for trying a lever before it becomes a migration (BENCH_SETUP_SQL).
 * The ceiling, batch by batch right after each: the same attempt rows as JSON texts stored by one
 * INSERT into a table with only a primary key (bench/lib/raw-store.ts).
 * Env: RECORD_DELIVERIES (20,000), BENCH_SETUP_SQL, RECORD_ROUNDS (3: the whole set is recorded
 * this many times, each time on fresh deliveries).
 */
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { seedMessages } from "../test/harness/delivery/seed";
import { measureCpu } from "./lib/cpu";
import { createRawTable, rawStore } from "./lib/raw-store";
import { costRatio, printResult, runBench } from "./lib/result";
import { benchDatabase } from "./lib/database";

const N = Number(process.env.RECORD_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.RECORD_ROUNDS ?? 3);
const BATCH = 500;

async function main() {
  const { url, db, close } = await benchDatabase(1);
  const { loadDueDeliveries } = await import("../lib/delivery/load");
  const { recordRound } = await import("../lib/delivery/record");
  const { answeredAttempt, orderCompleted } = await import("./lib/answered-attempt");
  try {
    if (process.env.BENCH_SETUP_SQL) await db.query(process.env.BENCH_SETUP_SQL);
    const workspaceId = await insertWorkspace(url);
    const destinationId = await insertDestination(url, {
      workspaceId,
      urls: ["http://127.0.0.1:9/hook"],
      sharedSecret: "bench-secret",
    });
    const load = { pgMs: 0, nodeMs: 0 };
    const record = { pgMs: 0, nodeMs: 0 };
    const ceiling = { pgMs: 0, nodeMs: 0 };
    await createRawTable(db);
    for (let round = 0; round < ROUNDS; round++) {
      const messages = Array.from({ length: N }, (_, i) => orderCompleted(i, `r${round}-${i}`));
      const { deliveryIds } = await seedMessages(url, { workspaceId, destinationIds: [destinationId], messages });
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
        stop = await measureCpu(db, null);
        await rawStore(
          db,
          attempts.map((a) => JSON.stringify(a)),
        );
        use = await stop();
        ceiling.pgMs += use.pgMs;
        ceiling.nodeMs += use.benchMs;
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
    console.log(
      `[bench] CPU per 1,000 deliveries: ceiling (the attempt rows stored raw) Postgres ${per(ceiling.pgMs)} ms + node ${per(ceiling.nodeMs)} ms`,
    );
    const ours = load.pgMs + record.pgMs + load.nodeMs + record.nodeMs;
    printResult("record-cost", costRatio(ours, ceiling.pgMs + ceiling.nodeMs), {
      pg_ms_per_1000: per(load.pgMs + record.pgMs),
      node_ms_per_1000: per(load.nodeMs + record.nodeMs),
      ceiling_pg_ms_per_1000: per(ceiling.pgMs),
      updates: hot.upd,
      hot_updates: hot.hot,
    });
  } finally {
    await close();
  }
}

runBench(main);
