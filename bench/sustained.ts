/**
 * npm run bench:sustained — what the whole product forwards on one box, ingest and delivery together:
 * the number a user sizing a machine needs.
 *
 * The web app behind the ingest server and one worker (as `npm start` runs them), a keep-alive sink in
 * its own process as the destination. POST /v1/batch (50 events a request) at a fixed offered rate for
 * BENCH_SUSTAINED_SECONDS (60) per step, stepping the rate up (BENCH_SUSTAINED_RATES, events/s) until
 * a step does not hold. A step holds when the sender got every batch accepted on time and the backlog
 * (events acknowledged but not yet received by the sink) grew by less than one second's worth between
 * the step's first quarter and its end. Between steps the backlog drains. Prints each step, then the
 * highest rate held with accept → receipt p50/p99 at that rate.
 * Ceiling, same run: undici keep-alive POSTs of a webhook-sized body to the same sink at the worker's
 * per-origin concurrency (what delivery alone could do with no work of its own); ratio = held / ceiling.
 *
 * BENCH_BATCH=<n>: the destination batches, n events a request, closing after 1 s at most
 * (docs/request-shape.md#batching); the ceiling's bodies then hold n events each and it counts events
 * (POSTs/s × n); the result is `sustained-batch`.
 */
import { Pool } from "undici";
import { buildIfNeeded } from "../scripts/lib/build";
import { createTestDatabase } from "../test/harness/pg";
import { ADMIN_TOKEN, ApiClient, startApp, startIngest, startWorker, type Proc } from "../test/harness/stack";
import { median, printResult, runBench, throughputRatio } from "./lib/result";
import { startSink, type Sink } from "./lib/sink-process";

const SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 60);
const RATES = (process.env.BENCH_SUSTAINED_RATES ?? "500,1000,2000,3000,4000,6000,8000,12000").split(",").map(Number);
const BATCH = 50;
/** BENCH_BATCH=<n>: events per request at the destination (0: one event per request). */
const DESTINATION_BATCH = Number(process.env.BENCH_BATCH ?? 0);
const CONCURRENCY = 64;
const CEILING_SECONDS = 3;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Bare keep-alive POSTs of a webhook-sized body to the sink, as fast as CONCURRENCY lanes go: events/s
 * (POSTs/s, or POSTs/s × BENCH_BATCH of bodies holding that many events).
 */
async function postCeiling(sink: Sink): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${sink.port}`, { connections: CONCURRENCY, pipelining: 1 });
  const event = {
    version: 1,
    type: "track",
    userId: "user-1",
    event: "Order Completed",
    properties: { total: 42.5, currency: "EUR", items: 3 },
    messageId: "ceiling-0000000000000000000000000",
    timestamp: new Date().toISOString(),
    context: { library: { name: "bench", version: "1" } },
  };
  const body = JSON.stringify(DESTINATION_BATCH > 0 ? Array.from({ length: DESTINATION_BATCH }, () => event) : event);
  let n = 0;
  const until = Date.now() + CEILING_SECONDS * 1000;
  const lane = async () => {
    while (Date.now() < until) {
      const r = await pool.request({ path: "/", method: "POST", headers: { "content-type": "application/json" }, body });
      await r.body.dump();
      n++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const rate = (n * Math.max(1, DESTINATION_BATCH)) / ((performance.now() - started) / 1000);
  await pool.close();
  return rate;
}

/** Events the sink has received in this step: requests, or (batched) the events in them. */
const received = async (sink: Sink): Promise<number> =>
  (await sink.ask<{ count: number }>(DESTINATION_BATCH > 0 ? "events" : "count")).count;

type Step = { rate: number; held: boolean; sent: number; accepted: number; refused: number; growth: number; p50: number; p99: number };

async function runStep(o: { ingestUrl: string; writeKey: string; sink: Sink; rate: number; step: number }): Promise<Step> {
  await o.sink.ask("reset");
  await o.sink.ask("track");
  const pool = new Pool(o.ingestUrl, { connections: 32 });
  const auth = `Basic ${Buffer.from(`${o.writeKey}:`).toString("base64")}`;
  const ackedAt = new Map<string, number>();
  let sent = 0;
  let accepted = 0;
  let refused = 0;
  let inFlight = 0;
  const total = Math.round(o.rate * SECONDS);
  const started = Date.now();
  const send = async (first: number) => {
    const n = Math.min(BATCH, total - first);
    const ids = Array.from({ length: n }, (_, i) => `s${o.step}-${first + i}`);
    const batch = ids.map((messageId, i) => ({
      type: "track",
      messageId,
      userId: `user-${(first + i) % 1000}`,
      event: "Order Completed",
      properties: { total: 42.5, currency: "EUR", items: 3 },
    }));
    inFlight++;
    try {
      const r = await pool.request({
        path: "/v1/batch",
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify({ batch }),
      });
      await r.body.dump();
      if (r.statusCode === 200) {
        const at = performance.timeOrigin + performance.now();
        for (const id of ids) ackedAt.set(id, at);
        accepted += n;
      } else refused += n;
    } catch {
      refused += n;
    } finally {
      inFlight--;
    }
  };
  // Offer the rate: every 10 ms, send the batches that are due by now.
  const backlog: { t: number; n: number }[] = [];
  let lastSample = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * o.rate));
    while (sent < due && inFlight < 256) {
      void send(sent);
      sent += Math.min(BATCH, total - sent);
    }
    if (Date.now() - lastSample >= 1000) {
      lastSample = Date.now();
      backlog.push({ t: (Date.now() - started) / 1000, n: accepted - (await received(o.sink)) });
    }
    await sleep(10);
  }
  while (inFlight > 0) await sleep(10);
  const elapsed = (Date.now() - started) / 1000;
  const atEnd = await received(o.sink);
  const quarter = backlog.find((b) => b.t >= SECONDS / 4)?.n ?? 0;
  const growth = accepted - atEnd - quarter;
  // The sender kept the offered rate (within 5 %) and the backlog did not grow by a second's worth.
  const held = refused === 0 && elapsed <= SECONDS * 1.05 && growth < o.rate;
  // Drain before the next step (and for this step's latencies), at most two minutes.
  const drainUntil = Date.now() + 120_000;
  for (;;) {
    if ((await received(o.sink)) >= accepted || Date.now() > drainUntil) break;
    await sleep(200);
  }
  const { receipts } = await o.sink.ask<{ receipts: [string, number][] }>("receipts");
  const seen = new Set<string>();
  const latencies: number[] = [];
  for (const [id, at] of receipts) {
    if (seen.has(id)) continue;
    seen.add(id);
    const acked = ackedAt.get(id);
    if (acked !== undefined) latencies.push(at - acked);
  }
  latencies.sort((a, b) => a - b);
  await pool.close();
  return { rate: o.rate, held, sent, accepted, refused, growth, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

async function main() {
  buildIfNeeded((m) => console.log(`[bench] ${m}`));
  const db = await createTestDatabase();
  const sink = await startSink();
  const procs: Proc[] = [];
  try {
    const web = await startApp(db.url);
    procs.push(web);
    const ingest = await startIngest(db.url, { webUrl: web.url });
    procs.push(ingest);
    procs.push(await startWorker(db.url));
    const admin = new ApiClient(ingest.url, ADMIN_TOKEN);
    const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "sustained" });
    const api = new ApiClient(ingest.url, ws.token, ws.workspace.id);
    const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: "sustained" });
    await api.post("/api/destinations", {
      name: "sink",
      urls: [`http://127.0.0.1:${sink.port}/`],
      enabled: true,
      sourceIds: [source.id],
      ...(DESTINATION_BATCH > 0 ? { batch: { size: DESTINATION_BATCH, maxWaitMs: 1000 } } : {}),
    });

    const ceilings = [await postCeiling(sink)];
    const steps: Step[] = [];
    for (const [i, rate] of RATES.entries()) {
      const s = await runStep({ ingestUrl: ingest.url, writeKey: source.writeKey, sink, rate, step: i });
      steps.push(s);
      console.log(
        `[bench] ${rate} events/s for ${SECONDS} s: ${s.held ? "held" : "NOT held"} (accepted ${s.accepted}/${s.sent}, refused ${s.refused}, backlog growth ${s.growth}), accept → receipt p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`,
      );
      if (!s.held) break;
    }
    ceilings.push(await postCeiling(sink));
    const ceiling = median(ceilings);
    const best = steps.filter((s) => s.held).at(-1);
    console.log(
      `[bench] ceiling: ${ceilings.map((c) => Math.round(c)).join(" / ")} ${DESTINATION_BATCH > 0 ? `events/s in bare POSTs of ${DESTINATION_BATCH}` : "bare POSTs/s"} to the same sink`,
    );
    printResult(DESTINATION_BATCH > 0 ? "sustained-batch" : "sustained", best ? throughputRatio(best.rate, ceiling) : null, {
      held_per_s: best?.rate ?? 0,
      p50_ms: best?.p50 ?? Number.NaN,
      p99_ms: best?.p99 ?? Number.NaN,
      ceiling_posts_per_s: ceiling,
      step_s: SECONDS,
    });
  } finally {
    for (const p of procs.reverse()) await p.stop();
    sink.stop();
    await db.drop();
  }
}

runBench(main);
