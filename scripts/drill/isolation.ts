/**
 * `npm run drill -- isolation` (issue 14, docs/architecture.md#processes): the Tracking API's
 * latency while the dashboard is under heavy use, and its intake once the web process is killed.
 * Real processes on 127.0.0.1: `next start` behind the ingest server, as `npm start` runs them.
 *   1. quiet:  /v1/batch at a steady rate, nothing else — p50/p99;
 *   2. loaded: the same /v1 traffic while DRILL_ISOLATION_FLOOD (32) connections fetch dashboard
 *      API reads (sources, destinations, stats, attempts, health) as fast as they are answered;
 *      prints the p99 ratio loaded / quiet (goal ≤ 2);
 *   3. web killed: SIGKILL the web process, send again; every event must be accepted and stored.
 * Phases 1–2 run first with /v1 sent to the web app itself (before the ingest server), for comparison.
 * DRILL_ISOLATION_SECONDS (15 per phase), DRILL_ISOLATION_RATE (20 requests/s of 20 messages),
 * DRILL_ISOLATION_NICE=0 (leave the web process and its database sessions at normal CPU priority, unlike
 * `npm start`), DRILL_ISOLATION_DB_NICE=0 (nice the web process only, not its database sessions).
 */
import crypto from "node:crypto";
import os from "node:os";
import pg from "pg";
import { Pool } from "undici";
import { createTestDatabase } from "../../test/harness/pg";
import { ADMIN_TOKEN, startApp, startIngest } from "../../test/harness/stack";
import { WEB_NICENESS } from "../lib/runtime";

const SECONDS = Number(process.env.DRILL_ISOLATION_SECONDS ?? 15);
const RATE = Number(process.env.DRILL_ISOLATION_RATE ?? 20);
const FLOOD = Number(process.env.DRILL_ISOLATION_FLOOD ?? 32);
const BATCH = 20;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99) };
};

export type IsolationResult = {
  quiet: { n: number; p50: number; p99: number };
  loaded: { n: number; p50: number; p99: number };
  dashboardRequests: number;
  afterKill: { sent: number; accepted: number; stored: number };
  ratioP99: number;
  /** the same two phases with /v1 served by the web app itself */
  before: { quiet: { n: number; p50: number; p99: number }; loaded: { n: number; p50: number; p99: number } };
};

export async function runIsolationDrill(): Promise<IsolationResult> {
  const database = await createTestDatabase();
  const db = new pg.Pool({ connectionString: database.url, max: 3 });
  db.on("error", () => {});
  // As `npm start` runs it (scripts/start.ts): the dashboard, and its database sessions, yield the CPU to intake.
  const nice = process.env.DRILL_ISOLATION_NICE !== "0";
  const dbNice = nice && process.env.DRILL_ISOLATION_DB_NICE !== "0";
  const web = await startApp(database.url, {
    LOG_LEVEL: "warn",
    ...(dbNice ? { EVENTRAIL_DB_SESSION_NICENESS: String(WEB_NICENESS) } : {}),
  });
  const ingest = await startIngest(database.url, { webUrl: web.url, env: { LOG_LEVEL: "warn" } });
  if (nice && web.child.pid) os.setPriority(web.child.pid, WEB_NICENESS);
  try {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const created = await fetch(`${ingest.url}/api/workspaces`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "drill" }),
    });
    const { token } = (await created.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const source = (await (
      await fetch(`${ingest.url}/api/sources`, { method: "POST", headers: auth, body: '{"name":"drill"}' })
    ).json()) as {
      id: string;
      writeKey: string;
    };
    const basic = `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`;
    const tracking = new Pool(ingest.url, { connections: 16 });
    const direct = new Pool(web.url, { connections: 16 });
    let sent = 0;
    const post = async (to: Pool): Promise<{ ms: number; ok: boolean }> => {
      const batch = Array.from({ length: BATCH }, () => ({
        type: "track",
        userId: `u${sent % 100}`,
        event: "Drill",
        messageId: `iso-${sent++}-${crypto.randomUUID()}`,
      }));
      const t = performance.now();
      const res = await to.request({
        method: "POST",
        path: "/v1/batch",
        headers: { "content-type": "application/json", authorization: basic },
        body: JSON.stringify({ batch }),
      });
      await res.body.text();
      return { ms: performance.now() - t, ok: res.statusCode === 200 };
    };
    /** An open loop: RATE requests per second whatever the answers' latency, so a slow phase shows as latency. */
    const steady = async (to: Pool, seconds: number) => {
      const latencies: number[] = [];
      let failed = 0;
      const inFlight: Promise<void>[] = [];
      const start = performance.now();
      for (let i = 0; i < seconds * RATE; i++) {
        const due = start + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        inFlight.push(post(to).then((r) => (r.ok ? void latencies.push(r.ms) : void failed++)));
      }
      await Promise.all(inFlight);
      if (failed > 0) throw new Error(`${failed} Tracking API requests failed`);
      return latencies;
    };
    const reads = [
      "/api/sources",
      "/api/destinations",
      "/api/stats/deliveries",
      "/api/attempts",
      `/api/sources/${source.id}/events`,
      "/api/health",
    ];
    /** The Tracking API's latency on `to` while FLOOD connections read the dashboard API at `dashboardUrl`. */
    const underFlood = async (to: Pool, dashboardUrl: string) => {
      const dashboard = new Pool(dashboardUrl, { connections: FLOOD });
      let answered = 0;
      let flooding = true;
      const flood = Array.from({ length: FLOOD }, async (_, i) => {
        for (let k = i; flooding; k++) {
          const res = await dashboard.request({
            method: "GET",
            path: reads[k % reads.length],
            headers: { authorization: `Bearer ${token}` },
          });
          await res.body.text();
          answered++;
        }
      });
      const latencies = await steady(to, SECONDS);
      flooding = false;
      await Promise.all(flood);
      await dashboard.close();
      return { latencies: summary(latencies), answered };
    };

    // Before: the web app alone serves /v1 and the dashboard (one process, as before the ingest server).
    const webQuiet = summary(await steady(direct, SECONDS));
    const webLoaded = (await underFlood(direct, web.url)).latencies;
    await direct.close();
    // Now: /v1 on the ingest server, the dashboard behind it.
    const quiet = summary(await steady(tracking, SECONDS));
    const { latencies: loaded, answered: dashboardRequests } = await underFlood(tracking, ingest.url);

    await web.kill("SIGKILL");
    const before = sent;
    const afterKillResults = await Promise.all(Array.from({ length: 20 }, () => post(tracking)));
    await tracking.close();
    const {
      rows: [{ n: stored }],
    } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE source_id = $1", [source.id]);
    return {
      quiet,
      loaded,
      dashboardRequests,
      afterKill: { sent: sent - before, accepted: afterKillResults.filter((r) => r.ok).length * BATCH, stored: stored - before },
      ratioP99: loaded.p99 / quiet.p99,
      before: { quiet: webQuiet, loaded: webLoaded },
    };
  } finally {
    await ingest.stop();
    await web.stop();
    await db.end();
    await database.drop();
  }
}

export function formatIsolation(r: IsolationResult): string {
  const f = (x: { n: number; p50: number; p99: number }) => `p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms (${x.n} requests)`;
  return [
    `[drill] isolation: /v1/batch at ${RATE} req/s × ${BATCH} messages, ${SECONDS}s per phase`,
    `  quiet:                          ${f(r.quiet)}`,
    `  dashboard flooded (${FLOOD} conns):  ${f(r.loaded)}; ${r.dashboardRequests} dashboard requests answered`,
    `  ratio loaded / quiet: p50 ×${(r.loaded.p50 / r.quiet.p50).toFixed(2)}, p99 ×${r.ratioP99.toFixed(2)} (goal p99 ≤ ×2)`,
    `  before (web app serving /v1 itself): quiet ${f(r.before.quiet)}; flooded ${f(r.before.loaded)}; p99 ×${(r.before.loaded.p99 / r.before.quiet.p99).toFixed(2)}`,
    `  web process killed: ${r.afterKill.accepted} of ${r.afterKill.sent} events accepted, ${r.afterKill.stored} stored`,
  ].join("\n");
}
