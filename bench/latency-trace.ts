/**
 * Where the slow deliveries of bench:deliver's end-to-end run spend their time (issue 47 item 8): the
 * same stack and stream (the web app's /v1/batch, one worker, a sink process, RATE events/s in ticks
 * of 10 ms), then each delivery's path read back from the timestamps the product already writes —
 * the message's received_at, its deliver job's created_on and started_on (pg-boss: the fetch), its
 * attempt's started_at (the send) — beside the client's ack and the sink's receipt. Prints each
 * step's percentiles over all deliveries and over the slowest 1 %. A trace, not a benchmark: its
 * timings are not a result (the lead's quiet-machine runs are, bench:deliver).
 *
 *   TRACE_SECONDS (default 10), BENCH_RATE (default 500), TRACE_WARMUP (calls before the run, default 0)
 */
import path from "node:path";
import pg from "pg";
import { Pool } from "undici";
import { closeRuntime } from "../lib/platform/runtime";
import { buildIfNeeded } from "../scripts/lib/build";
import { createTestDatabase } from "../test/harness/pg";
import { ADMIN_TOKEN, ApiClient, startApp, startWorker } from "../test/harness/stack";
import { startSink } from "./lib/sink-process";

const SECONDS = Number(process.env.TRACE_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => (xs.length === 0 ? Number.NaN : xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]);

type Trace = { id: string; ack: number; recv: number; job: number; fetch: number; send: number; rx: number; jobs: number };

async function main() {
  buildIfNeeded((m) => console.log(`[trace] ${m}`));
  const sink = await startSink();
  const db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  const app = await startApp(db.url);
  // The worker's garbage collections of 1 ms or more, with their wall-clock times (bench/lib/gc-log.mjs).
  const worker = await startWorker(db.url, { NODE_OPTIONS: `--import ${path.join(import.meta.dirname, "lib/gc-log.mjs")}` });
  try {
    const admin = new ApiClient(app.url, ADMIN_TOKEN);
    const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "trace" });
    const api = new ApiClient(app.url, ws.token, ws.workspace.id);
    const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: "trace" });
    await api.post("/api/destinations", { name: "sink", urls: [`http://127.0.0.1:${sink.port}/e2e`], sourceIds: [source.id] });
    const client = new Pool(app.url, { connections: 16, pipelining: 1 });
    const auth = `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`;
    const post = async (batch: object[]) => {
      const res = await client.request({
        path: "/v1/batch",
        method: "POST",
        headers: { "content-type": "application/json", authorization: auth },
        body: JSON.stringify({ batch }),
      });
      await res.body.text();
      return res.statusCode;
    };
    // TRACE_WARMUP calls sent one by one before the traced run (bench:deliver's end-to-end run has none: its worker starts cold).
    for (let i = 0; i < Number(process.env.TRACE_WARMUP ?? 0); i++)
      await post([{ type: "track", userId: "w", event: "warm", messageId: `warm-${i}` }]);
    await sink.ask("reset");
    await sink.ask("track");
    const perTick = Math.max(1, Math.round(RATE / 100));
    const acked = new Map<string, number>();
    const inflight: Promise<void>[] = [];
    const start = performance.now();
    let seq = 0;
    for (let tick = 0; tick < SECONDS * 100; tick++) {
      const wait = start + tick * 10 - performance.now();
      if (wait > 0) await sleep(wait);
      const batch = Array.from({ length: perTick }, () => ({
        type: "track",
        userId: `u-${seq % 1000}`,
        event: "E2E",
        messageId: `e2e-${seq++}`,
        properties: { tick },
      }));
      inflight.push(
        post(batch).then((status) => {
          const at = performance.timeOrigin + performance.now();
          if (status === 200) for (const m of batch) acked.set(m.messageId, at);
        }),
      );
    }
    await Promise.all(inflight);
    let receipts: [string, number][] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
      receipts = (await sink.ask<{ receipts: [string, number][] }>("receipts")).receipts;
      if (receipts.length >= acked.size) break;
    }
    await client.close();
    const rx = new Map(receipts);

    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query<{ message_id: string; recv: number; job: number; fetch: number; send: number; jobs: number }>(`
      SELECT m.message_id, extract(epoch FROM m.received_at) * 1000 AS recv,
             extract(epoch FROM j.created_on) * 1000 AS job, extract(epoch FROM j.started_on) * 1000 AS fetch,
             extract(epoch FROM a.started_at) * 1000 AS send,
             (SELECT count(*)::int FROM pgboss.job k WHERE k.name = 'deliver' AND k.started_on = j.started_on) AS jobs
        FROM messages m
        JOIN deliveries d ON d.message_row_id = m.id
        JOIN attempts a ON a.delivery_id = d.id
        JOIN pgboss.job j ON j.name = 'deliver' AND j.data->'deliveryIds' ? d.id::text
       WHERE m.message_id LIKE 'e2e-%'`);
    // Autovacuum and autoanalyze of the fresh tables during the run (each a burst of Postgres CPU, and new plans after an analyze).
    const { rows: vac } = await c.query<{ t: string; a: Date | null; v: Date | null }>(
      `SELECT schemaname || '.' || relname AS t, last_autoanalyze AS a, last_autovacuum AS v FROM pg_stat_all_tables
        WHERE (last_autoanalyze IS NOT NULL OR last_autovacuum IS NOT NULL) ORDER BY 1`,
    );
    await c.end();
    const traces: Trace[] = [];
    for (const r of rows) {
      const ack = acked.get(r.message_id);
      const at = rx.get(r.message_id);
      if (ack === undefined || at === undefined) continue;
      traces.push({ id: r.message_id, ack, recv: +r.recv, job: +r.job, fetch: +r.fetch, send: +r.send, rx: at, jobs: r.jobs });
    }
    const steps: [string, (t: Trace) => number][] = [
      ["ack → receipt (the bench's latency)", (t) => t.rx - t.ack],
      ["received_at → ack (ingest, commit, answer)", (t) => t.ack - t.recv],
      ["job created → fetched (queue wait, from the ingest transaction's start)", (t) => t.fetch - t.job],
      ["ack → fetched", (t) => t.fetch - t.ack],
      ["fetched → sent (load, plan, limits)", (t) => t.send - t.fetch],
      ["sent → receipt (POST to the sink)", (t) => t.rx - t.send],
      ["jobs in the same fetch", (t) => t.jobs],
    ];
    const bySlowest = [...traces].sort((a, b) => b.rx - b.ack - (a.rx - a.ack));
    const slow = bySlowest.slice(0, Math.max(1, Math.ceil(traces.length / 100)));
    console.log(`[trace] ${traces.length} deliveries traced (${acked.size} acked) at ${RATE}/s for ${SECONDS} s`);
    for (const [name, f] of steps) {
      const all = traces.map(f).sort((a, b) => a - b);
      const s = slow.map(f).sort((a, b) => a - b);
      console.log(
        `[trace] ${name}: all p50 ${pct(all, 50).toFixed(1)} p90 ${pct(all, 90).toFixed(1)} p99 ${pct(all, 99).toFixed(1)} | slowest 1 %: p50 ${pct(s, 50).toFixed(1)} max ${s.at(-1)?.toFixed(1)}`,
      );
    }
    console.log("[trace] the 15 slowest (ms after the run's first ack; steps in ms):");
    const t0 = Math.min(...traces.map((t) => t.ack));
    for (const t of bySlowest.slice(0, 15))
      console.log(
        `[trace]   ${t.id} ack +${(t.ack - t0).toFixed(0)}: latency ${(t.rx - t.ack).toFixed(1)}, ack→fetch ${(t.fetch - t.ack).toFixed(1)}, fetch→send ${(t.send - t.fetch).toFixed(1)}, send→rx ${(t.rx - t.send).toFixed(1)}, jobs/fetch ${t.jobs}`,
      );
    // Are the slowest 1 % one stall or spread over the run? Counted per 250 ms of ack time.
    const buckets = new Map<number, number>();
    for (const t of slow) {
      const b = Math.floor((t.ack - t0) / 250) * 250;
      buckets.set(b, (buckets.get(b) ?? 0) + 1);
    }
    console.log(
      `[trace] slowest 1 % by ack time (ms after the first ack: count): ${[...buckets]
        .sort((a, b) => a[0] - b[0])
        .map(([b, n]) => `${b}: ${n}`)
        .join(", ")}`,
    );
    const p99 = pct(
      traces.map((t) => t.rx - t.ack).sort((a, b) => a - b),
      99,
    );
    const over = traces.filter((t) => t.rx - t.ack >= p99 / 2);
    const overBuckets = new Map<number, number>();
    for (const t of over) {
      const b = Math.floor((t.ack - t0) / 1000) * 1000;
      overBuckets.set(b, (overBuckets.get(b) ?? 0) + 1);
    }
    console.log(
      `[trace] deliveries over p99/2 (${(p99 / 2).toFixed(1)} ms) per second of the run: ${[...overBuckets]
        .sort((a, b) => a[0] - b[0])
        .map(([b, n]) => `${b / 1000}s: ${n}`)
        .join(", ")}`,
    );
    console.log(`[trace] the run's first ack at ${new Date(t0).toISOString()}`);
    for (const v of vac)
      console.log(
        `[trace]   ${v.t}: autoanalyze ${v.a ? `+${v.a.getTime() - t0} ms` : "-"}, autovacuum ${v.v ? `+${v.v.getTime() - t0} ms` : "-"}`,
      );
    // Did a worker GC pause fall inside a delivery's fetch → send → receipt?
    const gcs = worker
      .output()
      .split("\n")
      .flatMap((l) => {
        const m = /^\[gc\] (\d+) ([\d.]+) (\w+)/.exec(l);
        return m ? [{ at: Number(m[1]), ms: Number(m[2]), kind: m[3] }] : [];
      })
      .filter((g) => g.at >= t0 - 1000);
    const inGc = (t: Trace) => gcs.some((g) => g.at + g.ms >= t.fetch && g.at <= t.rx && g.ms >= 2);
    const share = (ts: Trace[]) => `${((100 * ts.filter(inGc).length) / Math.max(1, ts.length)).toFixed(0)} %`;
    const gcMs = gcs.reduce((a, g) => a + g.ms, 0);
    console.log(
      `[trace] worker GC pauses ≥ 1 ms during the run: ${gcs.length}, ${gcMs.toFixed(0)} ms in all, longest ${Math.max(0, ...gcs.map((g) => g.ms)).toFixed(1)} ms (${gcs.filter((g) => g.kind === "major").length} major); a pause ≥ 2 ms inside fetch → receipt: all ${share(traces)}, slowest 1 % ${share(slow)}`,
    );
  } finally {
    await worker.stop();
    await app.stop();
    sink.stop();
    await closeRuntime();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
