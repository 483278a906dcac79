/**
 * `npm run bench:growth` — does cost stay flat as data grows? (issue 14; takes minutes, not in CI)
 *
 * 1. Ingest: the app's POST /v1/batch (32 connections, 100-message batches, one destination) on an
 *    empty database, then again once GROWTH_MESSAGES messages (and a delivery each) are stored.
 *    ratio = full / empty, goal ≥ 0.9. Each window also prints, per relation, its WAL records,
 *    full-page images and bytes and its blocks read/hit (bench/lib/wal.ts; docs/architecture.md#growth).
 *    Clients' messageIds are random UUIDs unless GROWTH_MESSAGE_IDS=sequential. GROWTH_KEEP=1
 *    keeps the seeded database; GROWTH_DATABASE=<name> measures a kept one again (its empty phase
 *    on a new database of the same server). Each window starts with a CHECKPOINT and is long enough
 *    to span the checkpoints its WAL causes (docs/architecture.md#growth: why).
 *    GROWTH_EMBEDDED=1 measures on an embedded Postgres started by the product's own code
 *    (lib/platform/embedded-postgres.ts, the default database of `npm start`) in a temporary
 *    directory, removed at the end unless GROWTH_KEEP; GROWTH_EMBEDDED=<dir> uses (and keeps) that
 *    data directory, so a seeded database can be measured again. GROWTH_PG_SETTINGS="a=1,b=2"
 *    replaces or adds to its settings (levers under test).
 * 2. Request log at GROWTH_ATTEMPTS attempts: GET /api/attempts first page, a filtered page
 *    (destination + outcome failed + a one-day window), a messageId page and a userId page, median
 *    of 20 each, goal ≤ 150 ms; with the EXPLAIN (ANALYZE, BUFFERS) of each page's statement
 *    (attemptPageQuery, the one the API runs).
 * 3. An audience's first sync over GROWTH_PROFILES profiles: bench/audience.ts (its own database),
 *    goal ≤ 10 s.
 *
 * The rows are made by INSERT … SELECT generate_series with the table's secondary indexes dropped
 * and rebuilt afterwards (the same definitions, read from pg_indexes): a bulk load, not ingest.
 * Env: GROWTH_MESSAGE_IDS (uuid | sequential), GROWTH_MESSAGES (10,000,000), GROWTH_ATTEMPTS (10,000,000), GROWTH_PROFILES (1,000,000),
 * GROWTH_INGEST_EVENTS (600,000 per measurement on a server not started here), GROWTH_INGEST_EVENTS_MAX (4,000,000:
 * the cap on an embedded Postgres' window of one checkpoint cycle), GROWTH_WARM_EVENTS (50,000), GROWTH_ONLY=ingest,log,audience.
 * Last line: RESULT growth ratio=<full / empty> ingest_ratio=<r> cpu_ratio=<r> log_first_ms=<n>
 * log_filtered_ms=<n> log_message_id_ms=<n> log_user_id_ms=<n> audience_first_sync_ms=<n> (bench/lib/result.ts)
 */
import { spawnSync } from "node:child_process";
import { attemptsOfUser, bulkLoad, loadAttempts } from "./lib/bulk-load";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { Pool } from "undici";
import { buildIfNeeded, root } from "../scripts/lib/build";
import { migrate } from "../lib/platform/migrate";
import { startEmbeddedPostgres } from "../lib/platform/embedded-postgres";
import { adminUrl, createTestDatabase } from "../test/harness/pg";
import { ADMIN_TOKEN, ApiClient, startApp, startIngest } from "../test/harness/stack";
import { measureCpu } from "./lib/cpu";
import { printWal, walWindow } from "./lib/wal";
import { attemptPageQuery } from "../lib/request-log/attempts";
import { attemptListQuerySchema } from "../lib/request-log/contract";
import { median, printResult, runBench } from "./lib/result";

const MESSAGES = Number(process.env.GROWTH_MESSAGES ?? 10_000_000);
const ATTEMPTS = Number(process.env.GROWTH_ATTEMPTS ?? 10_000_000);
const PROFILES = Number(process.env.GROWTH_PROFILES ?? 1_000_000);
const INGEST_EVENTS = Number(process.env.GROWTH_INGEST_EVENTS ?? 600_000);
const INGEST_EVENTS_MAX = Number(process.env.GROWTH_INGEST_EVENTS_MAX ?? 4_000_000);
const WARM_EVENTS = Number(process.env.GROWTH_WARM_EVENTS ?? 50_000);
const ONLY = process.env.GROWTH_ONLY?.split(",") ?? ["ingest", "log", "audience"];
/**
 * How clients make messageIds: "uuid" (default) a random UUID, as analytics-python, -go, -java and
 * the mobile SDKs do, so the dedupe index (source_id, message_id) takes each insert on a random
 * leaf; "sequential" the bench's old `<tag>-<batch>-<i>`, whose keys all land in one narrow range
 * of that index (the time-prefixed ids of analytics-node, `node-next-<ms>-<uuid>`, behave so too).
 */
const MESSAGE_IDS = process.env.GROWTH_MESSAGE_IDS ?? "uuid";
const CHUNK = 1_000_000;
const DAY = 86_400_000;

const log = (m: string) => console.log(`[growth] ${m}`);

/**
 * Sends `events` in 100-message batches over 32 connections; gives events/s. `opts.stop` ends it
 * early (batches in flight finish); `opts.progress.done` counts the events accepted so far.
 */
async function ingestRate(
  appUrl: string,
  writeKey: string,
  tag: string,
  events: number,
  opts: { stop?: () => boolean; progress?: { done: number } } = {},
): Promise<number> {
  const client = new Pool(appUrl, { connections: 32, pipelining: 1 });
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`;
  const batches = Math.ceil(events / 100);
  let next = 0;
  let sheds = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < batches && !opts.stop?.()) {
        const b = next++;
        const batch = Array.from({ length: 100 }, (_, i) => ({
          type: "track",
          messageId: MESSAGE_IDS === "uuid" ? randomUUID() : `${tag}-${b}-${i}`,
          userId: `user-${(b * 100 + i) % 50_000}`,
          event: "Order Completed",
          properties: { orderId: `ord-${b}-${i}`, revenue: 19.99, currency: "EUR", items: [{ sku: `SKU-${i}`, qty: 1 }] },
          context: { ip: "203.0.113.7", library: { name: "analytics-node", version: "6.2.0" }, locale: "de-DE" },
        }));
        const body = JSON.stringify({ batch });
        // A loaded Tracking API sheds with 503 + Retry-After; a client retries (the time counts).
        for (let attempt = 1; ; attempt++) {
          const res = await client.request({
            path: "/v1/batch",
            method: "POST",
            headers: { "content-type": "application/json", authorization: auth },
            body,
          });
          await res.body.text();
          if (res.statusCode === 200) {
            if (opts.progress) opts.progress.done += 100;
            break;
          }
          if (res.statusCode !== 503 || attempt >= 20) throw new Error(`/v1/batch answered ${res.statusCode} (attempt ${attempt})`);
          sheds++;
          await new Promise((r) => setTimeout(r, 1_000 * Number(res.headers["retry-after"] ?? 1)));
        }
      }
    }),
  );
  const rate = (next * 100) / ((performance.now() - t0) / 1000);
  await client.close();
  if (sheds > 0) log(`${tag}: ${sheds} batches answered 503 and were sent again`);
  return rate;
}

/**
 * A UUIDv7 for a row stored at `at` (SQL), as ingest makes them (lib/tracking/row-ids.ts): the seeded
 * history must have the keys ingest would have given it, or the indexes would not be the ones that grow.
 */
const timeOrderedId = (at: string, seed: string) =>
  `(lpad(to_hex((extract(epoch FROM ${at}) * 1000)::bigint), 12, '0') || '7' || substr(md5(${seed}::text), 1, 3) || '8' || substr(md5(${seed}::text), 4, 15))::uuid`;

async function seedMessages(db: pg.Client, workspaceId: string, sourceId: string, destinationId: string) {
  // Spread over the last 30 days; user ids and events as an app's would be (50 k users, 20 events).
  await bulkLoad(
    db,
    "messages",
    MESSAGES,
    (from, to) =>
      db
        .query(
          `INSERT INTO messages (id, workspace_id, source_id, message_id, type, user_id, anonymous_id, event, timestamp, received_at, payload)
         SELECT ${timeOrderedId("now() - interval '30 days' + g * (interval '30 days' / $5)", "g")}, $1, $2, ${MESSAGE_IDS === "uuid" ? "md5('seed-' || g)::uuid::text" : "'seed-' || g"}, 'track', 'user-' || (g % 50000), 'anon-' || (g % 70000), 'Event ' || (g % 20),
                now() - interval '30 days' + g * (interval '30 days' / $5), now() - interval '30 days' + g * (interval '30 days' / $5),
                jsonb_build_object('type', 'track', 'event', 'Event ' || (g % 20), 'userId', 'user-' || (g % 50000),
                                   'properties', jsonb_build_object('orderId', 'ord-' || g, 'revenue', 19.99))
         FROM generate_series($3::int, $4::int) AS g`,
          [workspaceId, sourceId, from, to, MESSAGES],
        )
        .then(() => {}),
    { chunk: CHUNK, randomIndexes: MESSAGE_IDS === "uuid" ? ["messages_source_id_message_id_key"] : [], log },
  );
  // One pass over the seeded messages (the ones ingest made have their deliveries already).
  await bulkLoad(
    db,
    "deliveries",
    MESSAGES,
    () =>
      db
        .query(
          `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, state, attempt_count, delivered_at, created_at, updated_at)
           SELECT ${timeOrderedId("m.received_at", "m.message_id")}, $1, m.id, $2, 'delivered', 1, m.received_at, m.received_at, m.received_at
           FROM messages m WHERE m.source_id = $3 AND m.event LIKE 'Event %'`,
          [workspaceId, destinationId, sourceId],
        )
        .then(() => {}),
    { chunk: MESSAGES, log },
  );
}

async function timePage(url: string, headers: Record<string, string>, expected = 50): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < 23; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { attempts: unknown[] };
    if (!res.ok || body.attempts.length !== expected) throw new Error(`${url} → ${res.status}, ${body.attempts?.length} attempts`);
    if (i >= 3) out.push(performance.now() - t); // the first three warm the app and the cache
  }
  return median(out);
}

async function explain(db: pg.Client, workspaceId: string, query: Record<string, string>) {
  const q = attemptPageQuery(workspaceId, attemptListQuerySchema.parse(query));
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q.text}`, q.values);
  for (const r of rows) console.log(`    ${r["QUERY PLAN"]}`);
}

function audienceFirstSyncMs(): number | null {
  log(`audience: bench/audience.ts with BENCH_PROFILES=${PROFILES}`);
  const r = spawnSync("npx", ["tsx", "--conditions=react-server", path.join(root, "bench/audience.ts")], {
    cwd: root,
    env: { ...process.env, BENCH_PROFILES: String(PROFILES) },
    encoding: "utf8",
  });
  console.log(r.stdout.trimEnd().replace(/^/gm, "    "));
  if (r.status !== 0) console.log(r.stderr.trimEnd().replace(/^/gm, "    "));
  const line = r.stdout.split("\n").find((l) => /first sync/i.test(l) && /ms/.test(l));
  const m = line?.match(/total ([\d,]+) ms/);
  return m ? Number(m[1].replaceAll(",", "")) : null;
}

/**
 * GROWTH_EMBEDDED: an embedded Postgres started by lib/platform/embedded-postgres.ts — the product's
 * default database, with its settings — on a free port of its own; the harness's databases are then
 * created on it (TEST_DATABASE_ADMIN_URL). Returns its postmaster's pid (its whole CPU is measured).
 */
async function startEmbedded(): Promise<{ postmasterPid: number; stop(): Promise<void> } | undefined> {
  const option = process.env.GROWTH_EMBEDDED;
  if (!option) return undefined;
  const temporary = option === "1";
  const dir = temporary ? fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-growth-")) : path.resolve(option);
  fs.mkdirSync(dir, { recursive: true });
  // A port of its own, away from other benchmarks' and tests' embedded servers (54320…).
  const portFile = path.join(dir, "pg.port");
  if (!fs.existsSync(portFile)) {
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer();
      server.listen(0, "127.0.0.1", () => {
        const p = (server.address() as net.AddressInfo).port;
        server.close(() => resolve(p));
      });
    });
    fs.writeFileSync(portFile, String(port));
  }
  const settings = process.env.GROWTH_PG_SETTINGS?.split(",").filter(Boolean) ?? [];
  const embedded = await startEmbeddedPostgres(dir, {
    settings,
    onLog: (text) => {
      naturalCheckpoints.started += text.match(/checkpoint starting: (wal|time)/g)?.length ?? 0;
    },
  });
  const admin = new URL(embedded.url);
  admin.pathname = "/postgres";
  process.env.TEST_DATABASE_ADMIN_URL = admin.href;
  const postmasterPid = Number(fs.readFileSync(path.join(dir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
  log(`embedded Postgres in ${dir} on port ${admin.port}${settings.length ? ` with ${settings.join(" ")}` : ""}`);
  return {
    postmasterPid,
    stop: async () => {
      await embedded.stop();
      if (temporary && !process.env.GROWTH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
      else log(`embedded data directory ${dir} is kept (GROWTH_EMBEDDED=${dir} starts it again)`);
    },
  };
}

/**
 * GROWTH_DATABASE=<name>: measure the full phase again on a database a previous run kept
 * (GROWTH_KEEP=1), migrated to the current schema first, instead of seeding a new one (10 M rows
 * take ~10 minutes to load on the 2-core machine). The empty phase is then measured on a new
 * database of the same server, dropped afterwards.
 */
async function openDatabase(): Promise<{ url: string; name: string; reused: boolean; drop(): Promise<void> }> {
  const name = process.env.GROWTH_DATABASE;
  const keep = Boolean(process.env.GROWTH_KEEP) || Boolean(name);
  if (!name) {
    const created = await createTestDatabase();
    if (keep) log(`database ${created.name} is kept (GROWTH_DATABASE=${created.name} measures it again)`);
    return { ...created, reused: false, drop: keep ? async () => {} : created.drop };
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  await migrate(url.href);
  return { url: url.href, name, reused: true, drop: async () => {} };
}

type Stack = {
  app: Awaited<ReturnType<typeof startApp>>;
  workspaceId: string;
  source: { id: string; writeKey: string };
  destination: { id: string };
};

/** The app on `url`, with the bench's workspace, source and destination (created, or found in a kept database). */
async function openStack(url: string, db: pg.Client, reused: boolean): Promise<Stack> {
  const app = await startApp(url, { LOG_LEVEL: "warn" });
  const admin = new ApiClient(app.url, ADMIN_TOKEN);
  const ws = reused
    ? { token: "", workspace: { id: (await db.query("SELECT id FROM workspaces WHERE name = 'growth' LIMIT 1")).rows[0].id as string } }
    : await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "growth" });
  const api = new ApiClient(app.url, ws.token, ws.workspace.id);
  const source = reused
    ? (await db.query("SELECT id, write_key AS \"writeKey\" FROM sources WHERE workspace_id = $1 AND name = 'growth'", [ws.workspace.id]))
        .rows[0]
    : await api.post("/api/sources", { name: "growth" });
  const destination = reused
    ? (await db.query("SELECT id FROM destinations WHERE workspace_id = $1 AND name = 'sink'", [ws.workspace.id])).rows[0]
    : await api.post("/api/destinations", { name: "sink", urls: ["http://127.0.0.1:9/hook"], sourceIds: [source.id] });
  return { app, workspaceId: ws.workspace.id, source, destination };
}

type Window = { rate: number; appMs: number; pgMs: number; serverMs: number; fpi: number; checkpoints: number };

const checkpointCount = async (db: pg.Client) =>
  Number(
    (
      await db.query(
        // Postgres 17 moved the counters to pg_stat_checkpointer.
        (
          await db.query("SELECT to_regclass('pg_catalog.pg_stat_checkpointer') IS NOT NULL AS v17")
        ).rows[0].v17
          ? "SELECT num_timed + num_requested AS n FROM pg_stat_checkpointer"
          : "SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter",
      )
    ).rows[0].n,
  );

/** Checkpoints the embedded Postgres has started by itself (its log: "checkpoint starting: wal|time"). */
const naturalCheckpoints = { started: 0 };

const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/**
 * One measured window of ingest into `url`: the ingest server (ingest/index.ts, as bench:ingest
 * measures it) warmed with WARM_EVENTS, then a CHECKPOINT, then ingest at full speed. CPU per 1,000
 * events of the ingest server and of Postgres, which the neighbours' load moves far less than events/s.
 *
 * The first change of a page after a checkpoint writes an image of it, so what a window costs
 * depends on where it falls in the checkpoint cycle (docs/architecture.md#growth). On the embedded
 * Postgres, which only this benchmark writes to, the window is whole cycles: from the CHECKPOINT to
 * the start of the first checkpoint the ingest's own WAL (or checkpoint_timeout) causes after at
 * least INGEST_EVENTS events, at most INGEST_EVENTS_MAX; every page then writes its image once per
 * cycle, as in the steady state. On another server (whose checkpoints the neighbours' WAL also
 * triggers) it is INGEST_EVENTS events from the CHECKPOINT.
 */
async function ingestWindow(url: string, db: pg.Client, writeKey: string, tag: string, postmasterPid: number | null): Promise<Window> {
  const ingest = await startIngest(url, { env: { LOG_LEVEL: "warn" } });
  const cpuDb = new pg.Pool({ connectionString: url, max: 1 });
  cpuDb.on("error", () => {});
  try {
    await ingestRate(ingest.url, writeKey, `warm-${tag}`, WARM_EVENTS);
    await db.query("CHECKPOINT");
    const cycles = postmasterPid !== null;
    const progress = { done: 0 };
    const cyclesBefore = naturalCheckpoints.started;
    let started = cyclesBefore;
    const wal = await walWindow(db);
    const checkpointsBefore = await checkpointCount(db);
    const load = loadAverage();
    const stop = await measureCpu(cpuDb, ingest.child.pid ?? null, postmasterPid);
    const t0 = performance.now();
    // On the embedded Postgres: whole checkpoint cycles, ending when the first checkpoint starts after INGEST_EVENTS.
    const sending = ingestRate(ingest.url, writeKey, tag, cycles ? INGEST_EVENTS_MAX : INGEST_EVENTS, {
      progress,
      stop: cycles
        ? () => {
            if (progress.done < INGEST_EVENTS) started = naturalCheckpoints.started;
            return naturalCheckpoints.started > started;
          }
        : undefined,
    });
    await sending;
    const completeCycle = cycles && naturalCheckpoints.started > started;
    const cpu = await stop();
    const [events, seconds] = [progress.done, (performance.now() - t0) / 1000];
    const rate = events / seconds;
    const per = (ms: number) => (ms * 1000) / events;
    const checkpoints = (await checkpointCount(db)) - checkpointsBefore;
    let fpi = Number.NaN;
    await wal().then(
      (use) => {
        // On a server of its own, pg_stat_wal's count (exact); on a shared one, this database's.
        fpi = ((postmasterPid ? use.server.fpi : use.total.fpi) * 1000) / events;
        printWal(use, events, (l) => log(`  ${l}`));
      },
      (err: Error) => log(`  WAL of the window not read: ${err.message}`),
    );
    const w = { rate, appMs: per(cpu.appMs), pgMs: per(cpu.pgMs), serverMs: per(cpu.serverMs), fpi, checkpoints };
    const span = cycles
      ? completeCycle
        ? `whole checkpoint cycles (${naturalCheckpoints.started - cyclesBefore})`
        : `NOT a whole checkpoint cycle (GROWTH_INGEST_EVENTS_MAX=${INGEST_EVENTS_MAX} reached first)`
      : `${checkpoints} checkpoints (server-wide) after the first`;
    log(
      `${tag}: ${events.toLocaleString("en-US")} events in ${seconds.toFixed(0)} s, ${span}: ${rate.toFixed(0)} events/s; CPU ms per 1,000 events: ingest ${w.appMs.toFixed(1)} + postgres ${w.pgMs.toFixed(1)}${postmasterPid ? ` (whole server ${w.serverMs.toFixed(1)})` : ""}; ${fpi.toFixed(0)} full-page images per 1,000 events; load average before ${load}, after ${loadAverage()}`,
    );
    return w;
  } finally {
    await cpuDb.end();
    await ingest.stop();
  }
}

async function main() {
  buildIfNeeded(log);
  const embedded = await startEmbedded();
  try {
    await run(embedded?.postmasterPid ?? null);
  } finally {
    await embedded?.stop();
  }
}

async function run(postmasterPid: number | null) {
  const database = await openDatabase();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  let stack: Stack | undefined;
  const result: Record<string, string> = {
    ingest_ratio: "-",
    cpu_ratio: "-",
    log_first_ms: "-",
    log_filtered_ms: "-",
    log_message_id_ms: "-",
    log_user_id_ms: "-",
    audience_first_sync_ms: "-",
  };
  try {
    stack = await openStack(database.url, db, database.reused);
    const { app } = stack;
    const api = new ApiClient(app.url, ADMIN_TOKEN, stack.workspaceId);
    const ws = { workspace: { id: stack.workspaceId } };
    const { source, destination } = stack;

    if (ONLY.includes("ingest")) {
      const { rows: settings } = await db.query(
        `SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) AS s FROM pg_settings
         WHERE name IN ('server_version', 'shared_buffers', 'wal_compression', 'checkpoint_timeout', 'max_wal_size', 'full_page_writes', 'synchronous_commit', 'io_method')`,
      );
      log(`postgres ${new URL(database.url).host}: ${settings[0].s}`);
      const tag = `${Date.now().toString(36)}`; // a kept database is measured again with new messageIds
      let empty: Window;
      if (!database.reused) {
        empty = await ingestWindow(database.url, db, source.writeKey, `empty-${tag}`, postmasterPid);
        await seedMessages(db, ws.workspace.id, source.id, destination.id);
        // History that ingest stored over weeks has been vacuumed as it came; without this, the
        // autovacuum of the bulk load's millions of rows runs during the measurement (its CPU counted as ours).
        await db.query("VACUUM (ANALYZE) messages, deliveries");
      } else {
        // The empty phase on a new database of the same server, with the same treatment.
        const fresh = await createTestDatabase();
        const freshDb = new pg.Client({ connectionString: fresh.url });
        await freshDb.connect();
        let freshStack: Stack | undefined;
        try {
          freshStack = await openStack(fresh.url, freshDb, false);
          empty = await ingestWindow(fresh.url, freshDb, freshStack.source.writeKey, `empty-${tag}`, postmasterPid);
        } finally {
          await freshStack?.app.stop();
          await freshDb.end();
          await fresh.drop();
        }
      }
      const { rows: stored } = await db.query("SELECT reltuples::bigint AS n FROM pg_class WHERE relname = 'messages'");
      const full = await ingestWindow(database.url, db, source.writeKey, `full-${tag}`, postmasterPid);
      const cpuRatio = (empty.appMs + empty.pgMs) / (full.appMs + full.pgMs);
      log(
        `ingest with ${Number(stored[0].n).toLocaleString("en-US")} messages stored: ${full.rate.toFixed(0)} events/s (ratio ${(full.rate / empty.rate).toFixed(2)}, goal ≥ 0.9); CPU ms per 1,000 events: empty ${empty.appMs.toFixed(1)} + ${empty.pgMs.toFixed(1)}, full ${full.appMs.toFixed(1)} + ${full.pgMs.toFixed(1)} (ratio by CPU ${cpuRatio.toFixed(2)}${postmasterPid ? `; with the whole server ${((empty.appMs + empty.serverMs) / (full.appMs + full.serverMs)).toFixed(2)}` : ""}); full-page images per 1,000 events ${empty.fpi.toFixed(0)} → ${full.fpi.toFixed(0)}`,
      );
      result.ingest_ratio = (full.rate / empty.rate).toFixed(2);
      result.cpu_ratio = cpuRatio.toFixed(2);
    }

    if (ONLY.includes("log")) {
      const destinations = [destination.id];
      for (let i = 0; i < 4; i++)
        destinations.push((await api.post("/api/destinations", { name: `d${i}`, urls: [`http://127.0.0.1:9/d${i}`] })).id);
      await loadAttempts(db, { workspaceId: ws.workspace.id, destinations, total: ATTEMPTS, days: 7, log });
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, "x-eventrail-workspace": ws.workspace.id };
      const now = Date.now();
      const filter = {
        destinationId: destinations[2],
        outcome: "failed",
        from: new Date(now - 3 * DAY).toISOString(),
        to: new Date(now - 2 * DAY).toISOString(),
        limit: "50",
      };
      const first = await timePage(`${app.url}/api/attempts?limit=50`, headers);
      const filtered = await timePage(`${app.url}/api/attempts?${new URLSearchParams(filter)}`, headers);
      log(
        `request log at ${ATTEMPTS.toLocaleString("en-US")} attempts: first page ${first.toFixed(1)} ms, filtered page ${filtered.toFixed(1)} ms (goal ≤ 150)`,
      );
      log("plan of the first page:");
      await explain(db, ws.workspace.id, { limit: "50" });
      log("plan of the filtered page:");
      await explain(db, ws.workspace.id, filter);
      // The lookups keyed by day (lib/request-log/attempt-days.ts): one message's attempt, and one
      // user's over the week (one row in 50,000: a full page of 50 at 10 M).
      const byMessage = { messageId: `msg-${Math.floor(ATTEMPTS / 2)}`, limit: "50" };
      const byUser = { userId: "user-123", limit: "50" };
      const userRows = Math.min(50, attemptsOfUser(ATTEMPTS, 123));
      const messagePage = await timePage(`${app.url}/api/attempts?${new URLSearchParams(byMessage)}`, headers, 1);
      const userPage = await timePage(`${app.url}/api/attempts?${new URLSearchParams(byUser)}`, headers, userRows);
      log(
        `request log at ${ATTEMPTS.toLocaleString("en-US")} attempts: messageId page ${messagePage.toFixed(1)} ms, userId page ${userPage.toFixed(1)} ms (goal ≤ 150)`,
      );
      log("plan of the messageId page:");
      await explain(db, ws.workspace.id, byMessage);
      log("plan of the userId page:");
      await explain(db, ws.workspace.id, byUser);
      result.log_first_ms = first.toFixed(1);
      result.log_filtered_ms = filtered.toFixed(1);
      result.log_message_id_ms = messagePage.toFixed(1);
      result.log_user_id_ms = userPage.toFixed(1);
    }
  } finally {
    await stack?.app.stop();
    await db.end();
    await database.drop();
  }
  if (ONLY.includes("audience")) result.audience_first_sync_ms = String(audienceFirstSyncMs() ?? "-");
  // The ceiling is the same ingest on an empty database; without the ingest phase there is none.
  printResult("growth", result.ingest_ratio ? Number(result.ingest_ratio) : null, result);
}

runBench(main);
