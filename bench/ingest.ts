/**
 * `npm run bench:ingest` (issue 14): Tracking API throughput of the ingest server (ingest/index.ts)
 * on a fresh database of the local Postgres — exact dedupe, routing, deliveries and their jobs
 * committed before each 200 — and, in the same run, the raw pipeline ceiling
 * (raw-ceiling-server.ts: node:http, parse, one multi-row INSERT into a table with only a primary
 * key) under the same load generator. Last line:
 *   RESULT ingest ratio=<r> events_per_s=<n> ceiling_events_per_s=<n> … (bench/lib/result.ts)
 *
 * Env: BENCH_DURATION_S (20), BENCH_CONCURRENCY (32), BENCH_BATCH (100), BENCH_DESTINATIONS (1:
 * connected Webhooks destinations, so routing creates deliveries and jobs as in production),
 * BENCH_TARGET=next (the web app's /v1 routes instead, for comparison), BENCH_SETUP_SQL (run on the
 * fresh database before measuring: try a lever before it becomes a migration), BENCH_SAME_ROWS=1 (also
 * the product's rows by plain INSERT), BENCH_CPU_PROF=1 (a V8 CPU profile of the target to bench/.prof/),
 * BENCH_PLAN_EVENTS=50 (a tracking plan of that many track events with 10 properties each, the bench's
 * "Order Completed" among them, connected to the source: docs/tracking-plans.md; the result line says
 * plan_events=N, to be compared with a run without it).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { Pool } from "undici";
import { buildIfNeeded, root } from "../scripts/lib/build";
import { spawn } from "node:child_process";
import { INGEST_NODE_ARGS, withNodeOptions } from "../scripts/lib/runtime";
import { ADMIN_TOKEN, freePort, startApp, startIngest, waitFor } from "../test/harness/stack";
import { createTestDatabase } from "../test/harness/pg";
import { measureCpu, type CpuUse } from "./lib/cpu";
import { benchTrackCall } from "./lib/track-call";
import { printResult, runBench, throughputRatio } from "./lib/result";

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const DESTINATIONS = Number(process.env.BENCH_DESTINATIONS ?? 1);
const PLAN_EVENTS = Number(process.env.BENCH_PLAN_EVENTS ?? 0);
const WARMUP_S = Math.min(3, DURATION_S / 4);
const TARGET = process.env.BENCH_TARGET === "next" ? "next" : "ingest";
const loadavg = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const PROFILE_DIR = path.join(root, "bench", ".prof");

const runId = crypto.randomBytes(4).toString("hex");
let counter = 0;

/** A realistic ~600-byte server-side track call, as @segment/analytics-node sends it. */
function message(): Record<string, unknown> {
  const n = counter++;
  return benchTrackCall(n, `bench-${runId}-${n}`, new Date().toISOString());
}

function batchBody(): string {
  return JSON.stringify({ batch: Array.from({ length: BATCH }, message), sentAt: new Date().toISOString() });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function runFor(seconds: number, worker: () => Promise<number>): Promise<{ events: number; latencies: number[]; seconds: number }> {
  const deadline = Date.now() + seconds * 1000;
  const latencies: number[] = [];
  let events = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const t = performance.now();
        const n = await worker();
        events += n;
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { events, latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - start) / 1000 };
}

async function setup(db: pg.Pool): Promise<{ writeKey: string; workspaceId: string; sourceId: string; destinationIds: string[] }> {
  const {
    rows: [ws],
  } = await db.query("INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'bench') RETURNING id");
  const writeKey = crypto.randomBytes(16).toString("hex");
  const {
    rows: [src],
  } = await db.query(
    "INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES (gen_random_uuid(), $1, 'bench', $2, now()) RETURNING id",
    [ws.id, writeKey],
  );
  const destinationIds: string[] = [];
  for (let i = 0; i < DESTINATIONS; i++) {
    const {
      rows: [d],
    } = await db.query(
      "INSERT INTO destinations (id, workspace_id, name, urls, updated_at) VALUES (gen_random_uuid(), $1, $2, ARRAY['http://127.0.0.1:9/hook'], now()) RETURNING id",
      [ws.id, `bench ${i}`],
    );
    await db.query("INSERT INTO destination_sources (destination_id, source_id) VALUES ($1, $2)", [d.id, src.id]);
    destinationIds.push(d.id);
  }
  if (PLAN_EVENTS > 0) await attachPlan(db, ws.id, src.id);
  return { writeKey, workspaceId: ws.id, sourceId: src.id, destinationIds };
}

/**
 * A realistic plan: PLAN_EVENTS track events of 10 typed properties each; the bench's own event
 * passes its rule (so every call is checked, none flagged), as a healthy source's calls do.
 */
async function attachPlan(db: pg.Pool, workspaceId: string, sourceId: string) {
  const props = (i: number) => ({
    orderId: { type: "string", minLength: 1 },
    total: { type: "number", minimum: 0 },
    revenue: { type: "number" },
    currency: { type: "string", enum: ["EUR", "USD", "GBP"] },
    coupon: { type: ["string", "null"] },
    url: { type: "string", format: "uri" },
    products: {
      type: "array",
      items: {
        type: "object",
        properties: { sku: { type: "string", pattern: "^SKU-\\d+$" }, price: { type: "number" } },
        required: ["sku"],
      },
    },
    [`extra${i}a`]: { type: "boolean" },
    [`extra${i}b`]: { type: "integer" },
    [`extra${i}c`]: { type: "string", maxLength: 200 },
  });
  const rules = Array.from({ length: PLAN_EVENTS }, (_, i) => ({
    type: "track",
    event: i === 0 ? "Order Completed" : `Bench Event ${i}`,
    schema: { type: "object", properties: props(i), required: ["orderId", "total"] },
  }));
  const {
    rows: [plan],
  } = await db.query(
    "INSERT INTO tracking_plans (id, workspace_id, name, rules, updated_at) VALUES (gen_random_uuid(), $1, 'bench', $2, now()) RETURNING id",
    [workspaceId, JSON.stringify(rules)],
  );
  await db.query("UPDATE sources SET tracking_plan_id = $1 WHERE id = $2", [plan.id, sourceId]);
}

async function reset(db: pg.Pool) {
  await db.query("TRUNCATE messages, deliveries, source_calls CASCADE");
  await db.query("DELETE FROM pgboss.job").catch(() => {});
  await db.query("VACUUM ANALYZE messages");
  await db.query("CHECKPOINT");
}

const valuesList = (rows: number, cols: number) =>
  Array.from({ length: rows }, (_, r) => `(${Array.from({ length: cols }, (_, c) => `$${r * cols + c + 1}`).join(",")})`).join(",");

/**
 * The ceiling: the rows the app writes per batch — messages, and with `withDeliveries` one delivery
 * per message and destination — by plain multi-row INSERTs from Node, in one transaction.
 * (Not included: the app's single pg-boss job row per batch, its write-key lookup and validation.)
 */
function ceilingInsert(db: pg.Pool, ids: { workspaceId: string; sourceId: string; destinationIds: string[] }, withDeliveries: boolean) {
  const messagesSql = `INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event, "timestamp", original_timestamp, received_at, payload) VALUES ${valuesList(BATCH, 13)}`;
  const deliveriesSql = `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id) VALUES ${valuesList(BATCH, 4)}`;
  return async () => {
    const receivedAt = new Date().toISOString();
    const values: unknown[] = [];
    const rowIds: string[] = [];
    for (let i = 0; i < BATCH; i++) {
      const m = message();
      const rowId = crypto.randomUUID();
      rowIds.push(rowId);
      values.push(
        rowId,
        ids.workspaceId,
        ids.sourceId,
        "api",
        m.messageId,
        m.type,
        m.userId,
        m.anonymousId,
        m.event,
        m.timestamp,
        m.timestamp,
        receivedAt,
        JSON.stringify({ ...m, receivedAt }),
      );
    }
    if (!withDeliveries || ids.destinationIds.length === 0) {
      await db.query(messagesSql, values);
      return BATCH;
    }
    const client = await db.connect();
    try {
      await client.query("BEGIN");
      await client.query(messagesSql, values);
      for (const destinationId of ids.destinationIds) {
        await client.query(
          deliveriesSql,
          rowIds.flatMap((rowId) => [crypto.randomUUID(), ids.workspaceId, rowId, destinationId]),
        );
      }
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    return BATCH;
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

function report(label: string, r: { events: number; latencies: number[]; seconds: number }) {
  const eps = r.events / r.seconds;
  console.log(
    `${label.padEnd(40)} ${fmt(eps).padStart(8)} events/s   p50 ${pct(r.latencies, 50).toFixed(1)} ms   p99 ${pct(r.latencies, 99).toFixed(1)} ms   (${r.latencies.length} requests)`,
  );
  return eps;
}

/** CPU ms per 1,000 events by party, and what 2 otherwise idle cores would sustain at that cost. */
function reportCpu(label: string, events: number, parts: Record<string, number>) {
  const per = (ms: number) => (ms * 1000) / events;
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  const split = Object.entries(parts)
    .map(([k, ms]) => `${k} ${per(ms).toFixed(0)}`)
    .join(" + ");
  console.log(
    `${label.padEnd(40)} CPU ms per 1,000 events: ${split} = ${per(total).toFixed(0)}  → 2 idle cores ≈ ${fmt((2000 * events) / total)} events/s`,
  );
  return (2000 * events) / total;
}

/** `next start` under `node --cpu-prof` (not allowed in NODE_OPTIONS); the profile is written when it exits. */
async function startProfiledApp(databaseUrl: string) {
  fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--cpu-prof",
      `--cpu-prof-dir=${PROFILE_DIR}`,
      path.join(root, "node_modules/next/dist/bin/next"),
      "start",
      "-p",
      String(port),
      "-H",
      "127.0.0.1",
    ],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", LOG_LEVEL: "warn", EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/api/health`)).status > 0, { timeoutMs: 60_000, what: "the profiled app" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url,
    child,
    stop: async () => {
      child.kill("SIGINT");
      await exited;
    },
  };
}

/** The raw ceiling's server (raw-ceiling-server.ts), a process of its own like the ingest server. */
async function startRawCeiling(databaseUrl: string) {
  const port = await freePort();
  // The ingest server's Node flags (its young generation), so that the comparison is of the work alone.
  const child = spawn(process.execPath, [...INGEST_NODE_ARGS, path.join(root, "bench/lib/raw-ceiling-server.ts")], {
    cwd: root,
    env: withNodeOptions({ ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  await waitFor(async () => out.includes("ready"), { timeoutMs: 60_000, what: "the raw ceiling server" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The ingest server under `node --cpu-prof`; SIGINT makes it exit, which writes the profile. */
async function startProfiledIngest(databaseUrl: string) {
  fs.mkdirSync(PROFILE_DIR, { recursive: true });
  const port = await freePort();
  const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, ...INGEST_NODE_ARGS, "ingest/index.ts"], {
    cwd: root,
    env: withNodeOptions({
      ...process.env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      PORT: String(port),
      HOST: "127.0.0.1",
    }),
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/v1/track`)).status === 405, { timeoutMs: 60_000, what: "the profiled ingest server" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGINT");
      await exited;
    },
  };
}

/** The product under test: the ingest server (default) or, BENCH_TARGET=next, the web app's /v1 routes. */
async function startTarget(databaseUrl: string) {
  if (process.env.BENCH_CPU_PROF === "1" && TARGET === "ingest") return startProfiledIngest(databaseUrl);
  if (process.env.BENCH_CPU_PROF === "1") return startProfiledApp(databaseUrl);
  if (TARGET === "next") return startApp(databaseUrl, { LOG_LEVEL: "warn" });
  return startIngest(databaseUrl, { env: { LOG_LEVEL: "warn" } });
}

/** Load generator: CONCURRENCY keep-alive connections POSTing 100-message batches to `url`. */
function poster(url: string, writeKey: string) {
  const http = new Pool(url, { connections: CONCURRENCY, pipelining: 1 });
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`;
  const post = async () => {
    const res = await http.request({
      method: "POST",
      path: "/v1/batch",
      headers: { "content-type": "application/json", "accept-encoding": "gzip, deflate", authorization: auth },
      body: batchBody(),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || text !== '{"success":true}')
      throw new Error(`POST ${url}/v1/batch → ${res.statusCode} ${text.slice(0, 300)}`);
    return BATCH;
  };
  return { post, close: () => http.close() };
}

async function main() {
  if (TARGET === "next" || process.env.BENCH_CPU_PROF === "1") buildIfNeeded((m) => console.log(`[bench] ${m}`));
  const database = await createTestDatabase();
  const db = new pg.Pool({ connectionString: database.url, max: CONCURRENCY });
  // Dropping the database at the end terminates its connections.
  db.on("error", () => {});
  const app = await startTarget(database.url);
  let raw: Awaited<ReturnType<typeof startRawCeiling>> | undefined;
  try {
    const ids = await setup(db);
    // Measuring a lever before making it a migration (an index dropped, a BRIN instead of a btree…).
    if (process.env.BENCH_SETUP_SQL) await db.query(process.env.BENCH_SETUP_SQL);
    console.log(
      `[bench] target ${TARGET}, ${CONCURRENCY} connections, ${BATCH} messages per batch (~${Math.round(Buffer.byteLength(JSON.stringify(message())))} bytes each), ${DESTINATIONS} destination(s), ${DURATION_S}s per phase, load ${loadavg()}`,
    );

    const product = poster(app.url, ids.writeKey);
    const appPid = app.child.pid ?? null;
    await runFor(WARMUP_S, product.post);
    await reset(db);
    let stopCpu = await measureCpu(db, appPid);
    const api = await runFor(DURATION_S, product.post);
    const apiCpu: CpuUse = await stopCpu();
    const {
      rows: [stored],
    } = await db.query("SELECT (SELECT count(*) FROM messages)::int AS messages, (SELECT count(*) FROM deliveries)::int AS deliveries");
    await product.close();
    await app.stop();

    // The raw pipeline ceiling, same run, same load generator and concurrency (issue 14).
    raw = await startRawCeiling(database.url);
    const ceiling = poster(raw.url, ids.writeKey);
    await runFor(WARMUP_S, ceiling.post);
    await db.query("TRUNCATE raw_ceiling_events");
    await db.query("CHECKPOINT");
    stopCpu = await measureCpu(db, raw.child.pid ?? null);
    const rawRun = await runFor(DURATION_S, ceiling.post);
    const rawCpu = await stopCpu();
    await ceiling.close();

    // Optional: the same rows the product writes, by plain multi-row INSERTs (its indexes included).
    const sameRows: { label: string; run: Awaited<ReturnType<typeof runFor>>; cpu: CpuUse }[] = [];
    if (process.env.BENCH_SAME_ROWS === "1") {
      const insert = ceilingInsert(db, ids, DESTINATIONS > 0);
      await reset(db);
      await runFor(WARMUP_S, insert);
      await reset(db);
      stopCpu = await measureCpu(db, null);
      const run = await runFor(DURATION_S, insert);
      sameRows.push({ label: "same rows by INSERT (product indexes)", run, cpu: await stopCpu() });
    }

    console.log("");
    const apiEps = report(`POST /v1/batch (${TARGET})`, api);
    const rawEps = report("raw pipeline ceiling", rawRun);
    for (const c of sameRows) report(c.label, c.run);
    console.log(
      `stored by the product: ${fmt(stored.messages)} messages, ${fmt(stored.deliveries)} deliveries (${fmt(api.events)} acknowledged)`,
    );
    console.log("");
    const apiProjected = reportCpu(`POST /v1/batch (${TARGET})`, api.events, {
      app: apiCpu.appMs,
      postgres: apiCpu.pgMs,
      "load generator": apiCpu.benchMs,
    });
    const rawProjected = reportCpu("raw pipeline ceiling", rawRun.events, {
      server: rawCpu.appMs,
      postgres: rawCpu.pgMs,
      "load generator": rawCpu.benchMs,
    });
    console.log(`${"".padEnd(40)} ratio by CPU cost (load-independent): ${(apiProjected / rawProjected).toFixed(2)}`);
    for (const c of sameRows) reportCpu(c.label, c.run.events, { node: c.cpu.benchMs, postgres: c.cpu.pgMs });
    if (stored.messages !== api.events) throw new Error(`acknowledged ${api.events} events but ${stored.messages} are stored`);
    console.log(`load after: ${loadavg()} (goal: ratio ≥ 0.5)`);
    printResult("ingest", throughputRatio(apiEps, rawEps), {
      events_per_s: Math.round(apiEps),
      ceiling_events_per_s: Math.round(rawEps),
      cpu_ratio: throughputRatio(apiProjected, rawProjected).toFixed(2),
      plan_events: PLAN_EVENTS,
    });
  } finally {
    await app.stop().catch(() => {});
    await raw?.stop().catch(() => {});
    await db.end();
    await database.drop();
    if (process.env.BENCH_CPU_PROF === "1")
      console.log(`[bench] CPU profile of the target in ${path.relative(process.cwd(), PROFILE_DIR)}/`);
  }
}

runBench(main);
