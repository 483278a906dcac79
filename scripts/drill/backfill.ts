/**
 * `npm run drill -- backfill` (issue 37, docs/routing.md#backfill): live traffic's accept → receipt
 * latency while a large backfill runs. Real processes on 127.0.0.1: `next start` (serving /v1 and the
 * API) and one worker; webhook receivers in this process.
 *   1. seed: DRILL_BACKFILL_MESSAGES (1,000,000) stored calls of a "history" source, written by SQL;
 *   2. quiet: /v1/batch at a steady rate to a "live" source whose destination answers at once —
 *      per message, the time from the POST to its receipt: p50/p99;
 *   3. backfill: a destination of the history source backfilled over the whole backlog (its dry run
 *      first, timed), and the same live traffic while it runs; prints the p99 ratio loaded / quiet
 *      (goal ≤ ×2) and the backfill's rate meanwhile.
 * DRILL_BACKFILL_SECONDS (20 per phase), DRILL_BACKFILL_RATE (10 requests/s of 10 messages).
 */
import crypto from "node:crypto";
import http from "node:http";
import type net from "node:net";
import pg from "pg";
import { Pool } from "undici";
import { createTestDatabase } from "../../test/harness/pg";
import { ADMIN_TOKEN, startApp, startWorker } from "../../test/harness/stack";
import { startDrillReceiver } from "./receiver";

const MESSAGES = Number(process.env.DRILL_BACKFILL_MESSAGES ?? 1_000_000);
const SECONDS = Number(process.env.DRILL_BACKFILL_SECONDS ?? 20);
const RATE = Number(process.env.DRILL_BACKFILL_RATE ?? 10);
const BATCH = 10;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
type Summary = { n: number; p50: number; p99: number };
const summary = (ms: number[]): Summary => {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99) };
};

export type BackfillDrillResult = {
  messages: number;
  seedSeconds: number;
  dryRunSeconds: number;
  count: number;
  quiet: Summary;
  loaded: Summary;
  ratioP99: number;
  /** backfill deliveries settled during the loaded phase, per second */
  backfillRate: number;
  backfillDone: number;
};

/** A receiver that only counts: a million receipts kept one by one would weigh on the drill's own process. */
async function countingReceiver() {
  const state = { count: 0 };
  const sockets = new Set<net.Socket>();
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    req.resume();
    req.on("end", () => {
      state.count++;
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The backlog: `n` stored track calls of a source, received over the last hour, written in one statement per 100,000. */
async function seed(db: pg.Pool, workspaceId: string, sourceId: string, n: number) {
  const CHUNK = 100_000;
  for (let start = 0; start < n; start += CHUNK) {
    await db.query(
      `INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, event, timestamp, received_at, payload)
       SELECT gen_random_uuid(), $1, $2, 'api', 'hist-' || i, 'track', 'u' || (i % 1000), 'Order Completed', t, t,
              json_build_object('type', 'track', 'event', 'Order Completed', 'userId', 'u' || (i % 1000), 'messageId', 'hist-' || i,
                                'properties', json_build_object('n', i), 'context', json_build_object(), 'integrations', json_build_object(),
                                'timestamp', to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM generate_series($3::int, $4::int) AS i,
              LATERAL (SELECT now() - interval '50 minutes' + (i * interval '40 minutes') / $5::int AS t) x`,
      [workspaceId, sourceId, start, Math.min(n, start + CHUNK) - 1, n],
    );
  }
  // A backlog is old: its table vacuumed and analysed, not an autovacuum run starting mid-measure.
  await db.query("VACUUM ANALYZE messages");
}

export async function runBackfillDrill(): Promise<BackfillDrillResult> {
  const database = await createTestDatabase();
  const db = new pg.Pool({ connectionString: database.url, max: 3 });
  db.on("error", () => {});
  const env = { LOG_LEVEL: "warn" };
  const web = await startApp(database.url, env);
  const worker = await startWorker(database.url, {});
  const live = await startDrillReceiver();
  const history = await countingReceiver();
  try {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const created = await fetch(`${web.url}/api/workspaces`, { method: "POST", headers: admin, body: JSON.stringify({ name: "drill" }) });
    const { token, workspace } = (await created.json()) as { token: string; workspace: { id: string } };
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${web.url}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
      return res.json();
    };
    const liveSource = await api("POST", "/api/sources", { name: "live" });
    const historySource = await api("POST", "/api/sources", { name: "history" });
    await api("POST", "/api/destinations", { name: "live", urls: [`${live.url}/live`], sourceIds: [liveSource.id] });
    const t0 = performance.now();
    await seed(db, workspace.id, historySource.id, MESSAGES);
    const seedSeconds = (performance.now() - t0) / 1000;
    const backfilled = await api("POST", "/api/destinations", {
      name: "history",
      urls: [`${history.url}/history`],
      sourceIds: [historySource.id],
    });

    const basic = `Basic ${Buffer.from(`${liveSource.writeKey}:`).toString("base64")}`;
    const tracking = new Pool(web.url, { connections: 16 });
    /** An open loop: RATE requests per second; per message, POST start → first receipt. */
    const steady = async (seconds: number): Promise<number[]> => {
      const sentAt = new Map<string, number>();
      const inFlight: Promise<void>[] = [];
      const start = performance.now();
      for (let i = 0; i < seconds * RATE; i++) {
        const due = start + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const batch = Array.from({ length: BATCH }, () => ({
          type: "track",
          userId: "live",
          event: "Live",
          messageId: `live-${crypto.randomUUID()}`,
        }));
        const at = Date.now();
        for (const m of batch) sentAt.set(m.messageId, at);
        inFlight.push(
          tracking
            .request({
              method: "POST",
              path: "/v1/batch",
              headers: { "content-type": "application/json", authorization: basic },
              body: JSON.stringify({ batch }),
            })
            .then(async (res) => {
              await res.body.text();
              if (res.statusCode !== 200) throw new Error(`/v1/batch → ${res.statusCode}`);
            }),
        );
      }
      await Promise.all(inFlight);
      const deadline = Date.now() + 60_000;
      while ([...sentAt.keys()].some((id) => !live.firstAt.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const missing = [...sentAt.keys()].filter((id) => !live.firstAt.has(id)).length;
      if (missing > 0) throw new Error(`${missing} live messages were not received within 60 s`);
      return [...sentAt].map(([id, at]) => live.firstAt.get(id)! - at);
    };

    // Warm-up, not measured: the first requests pay for compiling routes and opening connections.
    await steady(3);
    const quiet = summary(await steady(SECONDS));

    const t1 = performance.now();
    const dry = await api("POST", `/api/destinations/${backfilled.id}/backfills`, {
      sourceIds: [historySource.id],
      from: new Date(Date.now() - 3_600_000).toISOString(),
      dryRun: true,
    });
    const dryRunSeconds = (performance.now() - t1) / 1000;
    const started = await api("POST", `/api/destinations/${backfilled.id}/backfills`, {
      sourceIds: [historySource.id],
      from: new Date(Date.now() - 3_600_000).toISOString(),
    });
    // The backfill under way (its first pages delivered) before live traffic is measured beside it.
    while (history.state.count < 2_000) await new Promise((r) => setTimeout(r, 100));
    const before = history.state.count;
    const t2 = performance.now();
    const loaded = summary(await steady(SECONDS));
    const backfillRate = (history.state.count - before) / ((performance.now() - t2) / 1000);
    const progress = await api("GET", `/api/destinations/${backfilled.id}/backfills/${started.id}`);
    await api("DELETE", `/api/destinations/${backfilled.id}/backfills/${started.id}`);
    await tracking.close();
    return {
      messages: MESSAGES,
      seedSeconds,
      dryRunSeconds,
      count: dry.count,
      quiet,
      loaded,
      ratioP99: loaded.p99 / quiet.p99,
      backfillRate,
      backfillDone: progress.done,
    };
  } finally {
    await worker.stop();
    await web.stop();
    await live.close();
    await history.close();
    await db.end();
    await database.drop();
  }
}

export function formatBackfill(r: BackfillDrillResult): string {
  const f = (x: Summary) => `p50 ${x.p50.toFixed(0)} ms, p99 ${x.p99.toFixed(0)} ms (${x.n} messages)`;
  return [
    `[drill] backfill: live /v1/batch at ${RATE} req/s × ${BATCH} messages, ${SECONDS}s per phase; backlog ${r.messages} stored calls (seeded in ${r.seedSeconds.toFixed(0)} s)`,
    `  dry run: ${r.count} calls counted in ${r.dryRunSeconds.toFixed(1)} s`,
    `  quiet:              accept → receipt ${f(r.quiet)}`,
    `  backfill running:   accept → receipt ${f(r.loaded)}; backfill ${r.backfillRate.toFixed(0)} deliveries/s, ${r.backfillDone} done when measured`,
    `  ratio loaded / quiet: p50 ×${(r.loaded.p50 / r.quiet.p50).toFixed(2)}, p99 ×${r.ratioP99.toFixed(2)} (goal p99 ≤ ×2)`,
    `RESULT drill-backfill messages=${r.messages} quiet_p99_ms=${r.quiet.p99.toFixed(0)} loaded_p99_ms=${r.loaded.p99.toFixed(0)} ratio=${r.ratioP99.toFixed(2)} backfill_per_s=${r.backfillRate.toFixed(0)} dry_run_s=${r.dryRunSeconds.toFixed(1)}`,
  ].join("\n");
}
