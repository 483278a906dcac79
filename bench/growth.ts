/**
 * `npm run bench:growth` — does cost stay flat as data grows? (issue 14; takes minutes, not in CI)
 *
 * 1. Ingest: the app's POST /v1/batch (32 connections, 100-message batches, one destination) on an
 *    empty database, then again once GROWTH_MESSAGES messages (and a delivery each) are stored.
 *    ratio = full / empty, goal ≥ 0.9. Each window also prints, per relation, its WAL records,
 *    full-page images and bytes and its blocks read/hit (bench/wal.ts; docs/architecture.md#growth).
 *    Clients' messageIds are random UUIDs unless GROWTH_MESSAGE_IDS=sequential. GROWTH_KEEP=1
 *    keeps the seeded database; GROWTH_DATABASE=<name> measures a kept one again (full phase only).
 * 2. Request log at GROWTH_ATTEMPTS attempts: GET /api/attempts first page and a filtered page
 *    (destination + outcome failed + a one-day window), median of 20 each, goal ≤ 150 ms; with the
 *    EXPLAIN (ANALYZE, BUFFERS) of each page's statement (attemptPageQuery, the one the API runs).
 * 3. An audience's first sync over GROWTH_PROFILES profiles: bench/audience.ts (its own database),
 *    goal ≤ 10 s.
 *
 * The rows are made by INSERT … SELECT generate_series with the table's secondary indexes dropped
 * and rebuilt afterwards (the same definitions, read from pg_indexes): a bulk load, not ingest.
 * Env: GROWTH_MESSAGE_IDS (uuid | sequential), GROWTH_MESSAGES (10,000,000), GROWTH_ATTEMPTS (10,000,000), GROWTH_PROFILES (1,000,000),
 * GROWTH_INGEST_EVENTS (100,000 per measurement: ~10 s, not a burst), GROWTH_ONLY=ingest,log,audience.
 * Last line: RESULT growth ingest_ratio=<r> log_first_ms=<n> log_filtered_ms=<n> audience_first_sync_ms=<n>
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { Pool } from "undici";
import { buildIfNeeded, root } from "../scripts/lib/build";
import { migrate } from "../lib/platform/migrate";
import { adminUrl, createTestDatabase } from "../test/harness/pg";
import { ADMIN_TOKEN, ApiClient, startApp, startIngest } from "../test/harness/stack";
import { measureCpu } from "./cpu";
import { printWal, walWindow } from "./wal";
import { attemptPageQuery } from "../lib/request-log/attempts";
import { attemptListQuerySchema } from "../lib/request-log/contract";

const MESSAGES = Number(process.env.GROWTH_MESSAGES ?? 10_000_000);
const ATTEMPTS = Number(process.env.GROWTH_ATTEMPTS ?? 10_000_000);
const PROFILES = Number(process.env.GROWTH_PROFILES ?? 1_000_000);
const INGEST_EVENTS = Number(process.env.GROWTH_INGEST_EVENTS ?? 100_000);
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const log = (m: string) => console.log(`[growth] ${m}`);

/** Runs `fill(from, to)` in chunks with the table's secondary indexes dropped, then rebuilds them. */
async function bulkLoad(db: pg.Client, table: string, total: number, fill: (from: number, to: number) => Promise<void>, chunk = CHUNK) {
  const t0 = performance.now();
  const { rows: indexes } = await db.query<{ name: string; def: string }>(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
     WHERE i.tablename = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [table],
  );
  for (const i of indexes) await db.query(`DROP INDEX "${i.name}"`);
  for (let from = 1; from <= total; from += chunk) await fill(from, Math.min(total, from + chunk - 1));
  await db.query("SET maintenance_work_mem = '256MB'");
  for (const i of indexes) await db.query(i.def);
  await db.query(`ANALYZE ${table}`);
  log(
    `${table}: ${total.toLocaleString("en-US")} rows loaded and ${indexes.length} indexes rebuilt in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}

async function ingestRate(appUrl: string, writeKey: string, tag: string): Promise<number> {
  const client = new Pool(appUrl, { connections: 32, pipelining: 1 });
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`;
  const batches = Math.ceil(INGEST_EVENTS / 100);
  let next = 0;
  let sheds = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < batches) {
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
          if (res.statusCode === 200) break;
          if (res.statusCode !== 503 || attempt >= 20) throw new Error(`/v1/batch answered ${res.statusCode} (attempt ${attempt})`);
          sheds++;
          await new Promise((r) => setTimeout(r, 1_000 * Number(res.headers["retry-after"] ?? 1)));
        }
      }
    }),
  );
  const rate = (batches * 100) / ((performance.now() - t0) / 1000);
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
  await bulkLoad(db, "messages", MESSAGES, (from, to) =>
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
    MESSAGES,
  );
}

async function seedAttempts(db: pg.Client, workspaceId: string, destinations: string[]) {
  // As bench/log.ts: ids ascend with time; destination and outcome (85 % success, 10 % retry, 5 % failed) hashed apart.
  await bulkLoad(db, "attempts", ATTEMPTS, (from, to) =>
    db
      .query(
        `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url,
                               attempt_number, started_at, duration_ms, request_headers, request_body, response_status,
                               response_headers, response_body, outcome)
         SELECT $1, md5(g::text)::uuid, ($2::uuid[])[1 + h.d], md5('m' || g)::uuid, 'msg-' || g, 'track', 'user-' || (g % 50000),
                'https://hooks' || (1 + h.d) || '.example.com/eventrail', 1, now() - interval '7 days' + g * (interval '7 days' / $5),
                20 + (hashint4(g) & 511), '{"content-type":"application/json","user-agent":"Eventrail.io/1.0"}'::jsonb,
                '{"version":1,"type":"track","userId":"user-' || g || '","event":"Order Completed","properties":{"total":42}}',
                CASE WHEN h.o < 5 THEN 500 WHEN h.o < 15 THEN 503 ELSE 200 END, '{"content-type":"application/json"}'::jsonb, '{"ok":true}',
                CASE WHEN h.o < 5 THEN 'failed' WHEN h.o < 15 THEN 'retry' ELSE 'success' END
         FROM generate_series($3::int, $4::int) AS g,
              LATERAL (SELECT (hashint4(g) & 2147483647) % 5 AS d, (hashint4(-g) & 2147483647) % 100 AS o) AS h`,
        [workspaceId, destinations, from, to, ATTEMPTS],
      )
      .then(() => {}),
  );
}

async function timePage(url: string, headers: Record<string, string>): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < 23; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { attempts: unknown[] };
    if (!res.ok || body.attempts.length !== 50) throw new Error(`${url} → ${res.status}, ${body.attempts?.length} attempts`);
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
 * GROWTH_DATABASE=<name>: measure the full phase again on a database a previous run kept
 * (GROWTH_KEEP=1), migrated to the current schema first, instead of seeding a new one (10 M rows
 * take ~10 minutes to load on the 2-core machine). The empty phase is then skipped.
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

async function main() {
  buildIfNeeded(log);
  const database = await openDatabase();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  const result: Record<string, string> = { ingest_ratio: "-", log_first_ms: "-", log_filtered_ms: "-", audience_first_sync_ms: "-" };
  try {
    app = await startApp(database.url, { LOG_LEVEL: "warn" });
    const admin = new ApiClient(app.url, ADMIN_TOKEN);
    const ws = database.reused
      ? { token: "", workspace: { id: (await db.query("SELECT id FROM workspaces WHERE name = 'growth' LIMIT 1")).rows[0].id as string } }
      : await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "growth" });
    const api = new ApiClient(app.url, ws.token, ws.workspace.id);
    const source = database.reused
      ? (await db.query("SELECT id, write_key AS \"writeKey\" FROM sources WHERE workspace_id = $1 AND name = 'growth'", [ws.workspace.id]))
          .rows[0]
      : await api.post("/api/sources", { name: "growth" });
    const destination = database.reused
      ? (await db.query("SELECT id FROM destinations WHERE workspace_id = $1 AND name = 'sink'", [ws.workspace.id])).rows[0]
      : await api.post("/api/destinations", { name: "sink", urls: ["http://127.0.0.1:9/hook"], sourceIds: [source.id] });

    if (ONLY.includes("ingest")) {
      const { rows: settings } = await db.query(
        `SELECT string_agg(name || '=' || current_setting(name), ' ' ORDER BY name) AS s FROM pg_settings
         WHERE name IN ('shared_buffers', 'wal_compression', 'checkpoint_timeout', 'max_wal_size', 'full_page_writes', 'synchronous_commit')`,
      );
      log(`postgres ${new URL(database.url).host}: ${settings[0].s}`);
      // The ingest server (ingest/index.ts), as bench:ingest measures it; CPU per 1,000 events of it
      // and of Postgres, which the neighbours' load moves far less than events/s.
      const ingest = await startIngest(database.url, { env: { LOG_LEVEL: "warn" } });
      const cpuDb = new pg.Pool({ connectionString: database.url, max: 1 });
      cpuDb.on("error", () => {});
      const checkpoints = async () =>
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
      const measured = async (tag: string) => {
        const wal = await walWindow(db);
        const checkpointsBefore = await checkpoints();
        const stop = await measureCpu(cpuDb, ingest.child.pid ?? null);
        const rate = await ingestRate(ingest.url, source.writeKey, tag);
        const cpu = await stop();
        const per = (ms: number) => (ms * 1000) / INGEST_EVENTS;
        log(`${tag}: ${(await checkpoints()) - checkpointsBefore} checkpoints (server-wide) during the measurement`);
        await wal().then(
          (use) => printWal(use, INGEST_EVENTS, (l) => log(`  ${l}`)),
          (err: Error) => log(`  WAL of the window not read: ${err.message}`),
        );
        return { rate, appMs: per(cpu.appMs), pgMs: per(cpu.pgMs) };
      };
      try {
        const tag = `${Date.now().toString(36)}`; // a kept database is measured again with new messageIds
        let empty = { rate: Number.NaN, appMs: Number.NaN, pgMs: Number.NaN };
        if (!database.reused) {
          await ingestRate(ingest.url, source.writeKey, `warm-${tag}`);
          empty = await measured(`empty-${tag}`);
          log(
            `ingest on an empty database: ${empty.rate.toFixed(0)} events/s; CPU ms per 1,000 events: ingest ${empty.appMs.toFixed(0)} + postgres ${empty.pgMs.toFixed(0)}`,
          );
          await seedMessages(db, ws.workspace.id, source.id, destination.id);
          // History that ingest stored over weeks has been vacuumed as it came; without this, the
          // autovacuum of the bulk load's millions of rows runs during the measurement (its CPU counted as ours).
          await db.query("VACUUM (ANALYZE) messages, deliveries");
          await db.query("CHECKPOINT");
        }
        await ingestRate(ingest.url, source.writeKey, `warm-full-${tag}`);
        const full = await measured(`full-${tag}`);
        log(
          `ingest with ${MESSAGES.toLocaleString("en-US")} messages stored: ${full.rate.toFixed(0)} events/s (ratio ${(full.rate / empty.rate).toFixed(2)}, goal ≥ 0.9); CPU ms per 1,000 events: ingest ${full.appMs.toFixed(0)} + postgres ${full.pgMs.toFixed(0)} (ratio by CPU ${((empty.appMs + empty.pgMs) / (full.appMs + full.pgMs)).toFixed(2)})`,
        );
        result.ingest_ratio = (full.rate / empty.rate).toFixed(2);
      } finally {
        await cpuDb.end();
        await ingest.stop();
      }
    }

    if (ONLY.includes("log")) {
      const destinations = [destination.id];
      for (let i = 0; i < 4; i++)
        destinations.push((await api.post("/api/destinations", { name: `d${i}`, urls: [`http://127.0.0.1:9/d${i}`] })).id);
      await seedAttempts(db, ws.workspace.id, destinations);
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
      result.log_first_ms = first.toFixed(1);
      result.log_filtered_ms = filtered.toFixed(1);
    }
  } finally {
    await app?.stop();
    await db.end();
    await database.drop();
  }
  if (ONLY.includes("audience")) result.audience_first_sync_ms = String(audienceFirstSyncMs() ?? "-");
  console.log(
    `RESULT growth ${Object.entries(result)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
