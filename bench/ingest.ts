/**
 * `npm run bench:ingest`: Tracking API throughput against the production app (`next start`) on
 * a fresh database of the local Postgres, and — in the same run — the raw ceiling: the same rows
 * inserted straight into Postgres from Node by multi-row INSERT at the same concurrency.
 *
 * Env: BENCH_DURATION_S (20), BENCH_CONCURRENCY (32), BENCH_BATCH (100), BENCH_DESTINATIONS (1:
 * connected Webhooks destinations, so routing creates deliveries and jobs as in production),
 * BENCH_CPU_PROF=1 (writes a V8 CPU profile of the web app to bench/.prof/).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { Pool } from "undici";
import { buildIfNeeded, root } from "../scripts/lib/build";
import { spawn } from "node:child_process";
import { ADMIN_TOKEN, freePort, startApp, waitFor } from "../test/harness/stack";
import { createTestDatabase } from "../test/harness/pg";
import { measureCpu, type CpuUse } from "./cpu";

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const DESTINATIONS = Number(process.env.BENCH_DESTINATIONS ?? 1);
const WARMUP_S = Math.min(3, DURATION_S / 4);
const PROFILE_DIR = path.join(root, "bench", ".prof");

const runId = crypto.randomBytes(4).toString("hex");
let counter = 0;

/** A realistic ~600-byte server-side track call, as @segment/analytics-node sends it. */
function message(): Record<string, unknown> {
  const n = counter++;
  return {
    type: "track",
    event: "Order Completed",
    userId: `user-${n % 5000}`,
    anonymousId: `anon-${(n * 7919) % 100000}-3f6c2a`,
    messageId: `bench-${runId}-${n}`,
    timestamp: new Date().toISOString(),
    properties: {
      orderId: `ord-${n}`,
      total: 129.9,
      revenue: 119.9,
      currency: "EUR",
      coupon: "WINTER",
      url: "https://shop.example.com/checkout/complete?step=3",
      products: [{ sku: "SKU-1042", name: "Trail shoes", price: 119.9, quantity: 1 }],
    },
    context: {
      library: { name: "@segment/analytics-node", version: "3.1.0" },
      ip: "203.0.113.7",
      locale: "en-GB",
      timezone: "Europe/Berlin",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64)",
    },
    integrations: {},
  };
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
  return { writeKey, workspaceId: ws.id, sourceId: src.id, destinationIds };
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

async function main() {
  buildIfNeeded((m) => console.log(`[bench] ${m}`));
  const database = await createTestDatabase();
  const db = new pg.Pool({ connectionString: database.url, max: CONCURRENCY });
  // Dropping the database at the end terminates its connections.
  db.on("error", () => {});
  const app =
    process.env.BENCH_CPU_PROF === "1" ? await startProfiledApp(database.url) : await startApp(database.url, { LOG_LEVEL: "warn" });
  try {
    const ids = await setup(db);
    console.log(
      `[bench] ${CONCURRENCY} connections, ${BATCH} messages per batch (~${Math.round(Buffer.byteLength(JSON.stringify(message())))} bytes each), ${DESTINATIONS} destination(s), ${DURATION_S}s per phase, load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
    );

    const http = new Pool(app.url, { connections: CONCURRENCY, pipelining: 1 });
    const auth = `Basic ${Buffer.from(`${ids.writeKey}:`).toString("base64")}`;
    const post = async () => {
      const res = await http.request({
        method: "POST",
        path: "/v1/batch",
        headers: { "content-type": "application/json", "accept-encoding": "gzip, deflate", authorization: auth },
        body: batchBody(),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text !== '{"success":true}')
        throw new Error(`POST /v1/batch → ${res.statusCode} ${text.slice(0, 300)}`);
      return BATCH;
    };

    const appPid = app.child.pid ?? null;
    await runFor(WARMUP_S, post);
    await reset(db);
    let stopCpu = await measureCpu(db, appPid);
    const api = await runFor(DURATION_S, post);
    const apiCpu: CpuUse = await stopCpu();
    const {
      rows: [stored],
    } = await db.query("SELECT (SELECT count(*) FROM messages)::int AS messages, (SELECT count(*) FROM deliveries)::int AS deliveries");
    await http.close();

    const ceilings: { label: string; run: Awaited<ReturnType<typeof runFor>>; cpu: CpuUse }[] = [];
    for (const withDeliveries of DESTINATIONS > 0 ? [true, false] : [false]) {
      const insert = ceilingInsert(db, ids, withDeliveries);
      await reset(db);
      await runFor(WARMUP_S, insert);
      await reset(db);
      stopCpu = await measureCpu(db, null);
      const run = await runFor(DURATION_S, insert);
      ceilings.push({
        label: withDeliveries ? "ceiling: same rows (msgs+deliveries)" : "ceiling: messages only",
        run,
        cpu: await stopCpu(),
      });
    }

    console.log("");
    const apiEps = report("POST /v1/batch (app)", api);
    const ceilEps = ceilings.map((c) => report(c.label, c.run));
    console.log(
      `stored by the app: ${fmt(stored.messages)} messages, ${fmt(stored.deliveries)} deliveries (${fmt(api.events)} acknowledged)`,
    );
    for (const [i, c] of ceilings.entries()) console.log(`ratio app / ${c.label}: ${(apiEps / ceilEps[i]).toFixed(2)}`);
    console.log("(goals: ratio ≥ 0.5 to the same rows, ≥ 15,000 events/s)");
    console.log("");
    const apiProjected = reportCpu("POST /v1/batch (app)", api.events, {
      app: apiCpu.appMs,
      postgres: apiCpu.pgMs,
      "load generator": apiCpu.benchMs,
    });
    for (const c of ceilings) {
      const projected = reportCpu(c.label, c.run.events, { node: c.cpu.benchMs, postgres: c.cpu.pgMs });
      console.log(`${"".padEnd(40)} ratio app / this by CPU cost (load-independent): ${(apiProjected / projected).toFixed(2)}`);
    }
    if (stored.messages !== api.events) throw new Error(`acknowledged ${api.events} events but ${stored.messages} are stored`);
  } finally {
    await app.stop();
    await db.end();
    await database.drop();
    if (process.env.BENCH_CPU_PROF === "1")
      console.log(`[bench] CPU profile of the web app in ${path.relative(process.cwd(), PROFILE_DIR)}/`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
