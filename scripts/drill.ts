// `npm run drill`: fault drills against real processes on 127.0.0.1 — the app (`next start`), workers,
// webhook receivers — and an embedded Postgres of the drill's own in a temp dir (never the shared
// server: drill 4 restarts it). Each drill sends a bounded number of events through the Tracking API
// while a fault is injected, and prints accepted, delivered, failed (with reasons), lost and
// duplicates. Exits 1 when any drill loses an event.
//   DRILL_EVENTS=1000 (events per drill), DRILL_ONLY=1,3 (run some drills only; DRILL_ONLY=6w,6tb,6t: a destination
//   throttled to 10/s beside a healthy one, docs/webhooks.md#rate-limits)
// `npm run drill -- abuse` runs the abuse drill instead (scripts/drill/abuse.ts; DRILL_ABUSE_SECONDS=20 per phase,
// DRILL_PG_SETTINGS="name=value …" and DRILL_PG_LOG=file: Postgres's extra settings and where its log goes (experiments);
// DRILL_ABUSE_ONLY=slow,idle,login,capture,oversized to run some attacks only, DRILL_ABUSE_ALONE=0 to run them all at
// once only, DRILL_ABUSE_ROUNDS=1 times the quiet and attack phases run in turn, DRILL_ABUSE_RATE=50 /v1 calls a second,
// DRILL_ABUSE_NICE=0 to leave the web process at normal priority, unlike `npm start`; DRILL_ABUSE_CPUS=split runs the
// product and Postgres on the first CPU and the drill with its attackers on the others, as if the attackers were elsewhere;
// the attackers run under SCHED_IDLE, on the CPU the product and the steady load leave: DRILL_ABUSE_ATTACKERS=normal
// runs them at normal priority; DRILL_ABUSE_WORKER_NICE=5 runs the worker and its database sessions at that niceness,
// an experiment: `npm start` runs the worker at normal priority). `npm run drill -- isolation` runs the
// Tracking API isolation drill (scripts/drill/isolation.ts). `npm run drill -- failover` runs the database failover
// drill (scripts/drill/failover.ts; not in CI: it needs Debian's Postgres server binaries and haproxy).
// `npm run drill -- backfill` runs the backfill drill: live latency beside a large backfill (scripts/drill/backfill.ts;
// DRILL_BACKFILL_MESSAGES=1000000 the backlog, DRILL_BACKFILL_SECONDS=20 per phase). `npm run drill -- hosts` runs two
// hosts on one database behind haproxy, one killed mid-run (scripts/drill/hosts.ts; not in CI: root, netns, haproxy).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedDb } from "../lib/platform/embedded-postgres";
import { migrate } from "../lib/platform/migrate";
import { buildIfNeeded } from "./lib/build";
import { startApp, startIngest, startWorker, type Proc } from "../test/harness/stack";
import { formatResult, runScenario, type DrillResult, type Stack } from "./drill/harness";
import { scenarios } from "./drill/scenarios";
import { formatIsolation, runIsolationDrill } from "./drill/isolation";
import { formatBackfill, runBackfillDrill } from "./drill/backfill";
import { formatFailover, runFailoverDrill, type FailoverMode } from "./drill/failover";
import { formatHosts, runHostsDrill } from "./drill/hosts";
import { WEB_NICENESS } from "./lib/runtime";
import {
  ABUSE_APP_ENV,
  ATTACKS,
  formatAbuse,
  reniceTree,
  runAbuseDrill,
  type Metered,
  splitCpus,
  type AbuseResult,
  type Attack,
} from "./drill/abuse";

const EVENTS = Number(process.env.DRILL_EVENTS ?? 1000);
const ONLY = process.env.DRILL_ONLY?.split(",").map((s) => s.trim());
// Short retries so that the drills finish in minutes: first retry after ~200 ms, steps capped at 2 s.
const ENV = { EVENTRAIL_RETRY_BASE_MS: "200", EVENTRAIL_RETRY_MAX_MS: "2000" };
// Workers log at info (their "worker started" line is how startWorker knows they are up).
const APP_ENV = { ...ENV, LOG_LEVEL: "warn" };
const ABUSE = process.argv.slice(2).includes("abuse");
/** DRILL_PG_SETTINGS="name=value …": settings the drill's Postgres starts with beyond its own (experiments: pg_stat_statements). */
const PG_SETTINGS = process.env.DRILL_PG_SETTINGS?.split(" ").filter(Boolean);
/** DRILL_PG_LOG=file: Postgres's log lines appended there, each after the time it arrived (with log_min_duration_statement and the like). */
const PG_LOG = process.env.DRILL_PG_LOG;
const PG_OPTIONS = {
  settings: PG_SETTINGS,
  ...(PG_LOG ? { onLog: (line: string) => fs.appendFileSync(PG_LOG, `${new Date().toISOString()} ${line}\n`) } : {}),
};

async function main() {
  // `npm run drill -- isolation`: its own processes and database (scripts/drill/isolation.ts).
  if (process.argv.slice(2).includes("isolation")) {
    const r = await runIsolationDrill();
    console.log(formatIsolation(r));
    process.exit(r.afterKill.stored === r.afterKill.sent && r.afterKill.accepted === r.afterKill.sent ? 0 : 1);
  }
  buildIfNeeded((m) => console.log(`[drill] ${m}`));
  if (process.argv.slice(2).includes("backfill")) {
    const r = await runBackfillDrill();
    console.log(formatBackfill(r));
    process.exit(r.ratioP99 <= 2 ? 0 : 1);
  }
  if (process.argv.slice(2).includes("hosts")) {
    const r = await runHostsDrill();
    console.log(formatHosts(r));
    const cronOnce = r.cronTicks.length === 2 && r.cronTicks.every((t) => t.most <= 1 && t.minutes >= 3);
    process.exit(r.lost === 0 && r.limited.overByLog === 0 && r.ordering.outOfOrder === 0 && cronOnce ? 0 : 1);
  }
  if (process.argv.slice(2).includes("failover")) {
    const modes = (process.env.DRILL_FAILOVER_MODES ?? "sync,async").split(",").map((m) => m.trim()) as FailoverMode[];
    let syncLost = 0;
    for (const mode of modes) {
      const r = await runFailoverDrill(mode);
      console.log(formatFailover(r));
      if (mode === "sync") syncLost += r.lost;
    }
    // Only the synchronous standby promises that nothing acknowledged is lost.
    process.exit(syncLost === 0 ? 0 : 1);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-drill-"));
  let pgServer: EmbeddedDb | undefined;
  let db: pg.Pool | undefined;
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  let edge: Awaited<ReturnType<typeof startIngest>> | undefined;
  const workers: Proc[] = [];
  const results: DrillResult[] = [];
  let abuse: AbuseResult | undefined;
  let failure: unknown;
  // Everything started here is stopped in `finally`, whatever fails on the way.
  try {
    pgServer = await startEmbeddedPostgres(dir, PG_OPTIONS);
    const url = pgServer.url;
    await migrate(url);
    db = new pg.Pool({ connectionString: url, max: 3 });
    db.on("error", () => {});
    // The abuse drill attacks through the edge, as `npm start` serves the public port: the edge
    // trusts the drill's one proxy hop, the web app one more (docs/edge.md#client-addresses).
    // …and, as under `npm start`, the web process and its database sessions run at WEB_NICENESS.
    app = await startApp(
      url,
      ABUSE
        ? { ...APP_ENV, ...ABUSE_APP_ENV, EVENTRAIL_TRUSTED_PROXIES: "2", EVENTRAIL_DB_SESSION_NICENESS: String(WEB_NICENESS) }
        : APP_ENV,
    );
    if (ABUSE && process.env.DRILL_ABUSE_NICE !== "0") reniceTree(app.child.pid!, WEB_NICENESS);
    if (ABUSE) edge = await startIngest(url, { webUrl: app.url, env: { ...APP_ENV, ...ABUSE_APP_ENV } });
    const workerNice = ABUSE && process.env.DRILL_ABUSE_WORKER_NICE ? Number(process.env.DRILL_ABUSE_WORKER_NICE) : undefined;
    workers.push(await startWorker(url, workerNice !== undefined ? { ...ENV, EVENTRAIL_DB_SESSION_NICENESS: String(workerNice) } : ENV));
    if (workerNice !== undefined) reniceTree(workers[0].child.pid!, workerNice);
    console.log(`[drill] app ${app.url}, 1 worker, Postgres ${url.replace(/:[^:@/]+@/, ":***@")}, ${EVENTS} events per drill`);

    const stack: Stack = {
      appUrl: edge?.url ?? app.url,
      db,
      workers,
      startWorker: () => startWorker(url, ENV),
      pg: () => pgServer!,
      async restartPostgres(downMs) {
        await pgServer!.stop();
        console.log(`[drill] Postgres stopped`);
        await new Promise((r) => setTimeout(r, downMs));
        pgServer = await startEmbeddedPostgres(dir, PG_OPTIONS);
        if (pgServer.url !== url) throw new Error(`Postgres came back on another port (${pgServer.url})`);
        console.log(`[drill] Postgres restarted`);
      },
    };

    if (ABUSE) {
      const phaseMs = Number(process.env.DRILL_ABUSE_SECONDS ?? 20) * 1000;
      const attacks = (process.env.DRILL_ABUSE_ONLY?.split(",").map((a) => a.trim()) ?? ATTACKS) as Attack[];
      const postmaster = Number(fs.readFileSync(path.join(dir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
      // The product's processes (all children of the drill), the drill's own (its steady load, probes and
      // receiver), and its attackers: the rest of its tree.
      const processes: Record<string, Metered> = {
        edge: { pid: edge!.child.pid! },
        web: { pid: app.child.pid! },
        worker: { pid: workers[0].child.pid! },
        postgres: { pid: postmaster },
        load: { pid: process.pid, alone: true },
        attackers: { pid: process.pid, rest: true },
      };
      if (process.env.DRILL_ABUSE_CPUS === "split") {
        console.log(`[drill] ${splitCpus([edge!.child.pid!, app.child.pid!, workers[0].child.pid!, postmaster], process.pid)}`);
      }
      // 50 calls a second: 1,000 in a 20 s phase, so that its p99 is not the 4th-slowest of 400 calls.
      const ratePerSecond = Number(process.env.DRILL_ABUSE_RATE ?? 50);
      const rounds = Number(process.env.DRILL_ABUSE_ROUNDS ?? 1);
      const alone = process.env.DRILL_ABUSE_ALONE !== "0";
      abuse = await runAbuseDrill(stack, { appPid: app.child.pid!, phaseMs, ratePerSecond, attacks, processes, rounds, alone });
      console.log(formatAbuse(abuse));
    }
    for (const s of ABUSE ? [] : scenarios(EVENTS)) {
      if (ONLY && !ONLY.includes(s.id) && !(s.id.startsWith("6") && ONLY.includes("6"))) continue;
      const r = await runScenario(stack, s);
      results.push(r);
      console.log(formatResult(r));
      // Drill 5's second worker goes back down gracefully, so later drills start from one worker.
      while (stack.workers.length > 1) await stack.workers.pop()!.stop();
    }
  } catch (err) {
    failure = err;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await edge?.stop();
    await app?.stop();
    await db?.end().catch(() => {});
    await pgServer?.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (failure) throw failure;

  if (abuse) {
    console.log(abuse.lost === 0 ? "[drill] abuse: 0 events lost" : `[drill] abuse: ${abuse.lost} events LOST`);
    process.exit(abuse.lost === 0 && abuse.trackNon200 === 0 ? 0 : 1);
  }
  console.log("\n[drill] summary");
  console.log("  drill | accepted | delivered | failed | lost | duplicates | seconds");
  for (const r of results)
    console.log(
      `  ${r.id.padEnd(5)} | ${String(r.accepted).padStart(8)} | ${String(r.delivered).padStart(9)} | ${String(r.failed).padStart(6)} | ${String(r.lost).padStart(4)} | ${String(r.duplicates).padStart(10)} | ${r.seconds.toFixed(1).padStart(7)}`,
    );
  const dead = results.find((r) => r.id === "6")?.latency;
  const ratio = (label: string, base: DrillResult["latency"]) =>
    dead &&
    base &&
    console.log(
      `  drill 6 healthy-URL latency beside a dead URL vs ${label}: p50 ${dead.p50} / ${base.p50} ms (×${(dead.p50 / Math.max(1, base.p50)).toFixed(2)}), p99 ${dead.p99} / ${base.p99} ms (×${(dead.p99 / Math.max(1, base.p99)).toFixed(2)})`,
    );
  // The isolation goal (≤ ×1.2) is against 6b: the same destinations with nothing hanging.
  ratio("the same destinations all answering (6b)", results.find((r) => r.id === "6b")?.latency);
  ratio("alone (6a)", results.find((r) => r.id === "6a")?.latency);
  // The same ratios from the Tracking API's 200 on: the delivery engine's part, without ingest's own noise.
  const afterAck = (r?: DrillResult) => r?.latency?.afterAck && { ...r.latency.afterAck, n: r.latency.n };
  const deadAfterAck = afterAck(results.find((r) => r.id === "6"));
  for (const [label, id] of [
    ["6b", "6b"],
    ["6a", "6a"],
  ] as const) {
    const base = afterAck(results.find((r) => r.id === id));
    if (deadAfterAck && base)
      console.log(
        `  drill 6 acked → received beside a dead URL vs ${label}: p50 ${deadAfterAck.p50} / ${base.p50} ms (×${(deadAfterAck.p50 / Math.max(1, base.p50)).toFixed(2)}), p99 ${deadAfterAck.p99} / ${base.p99} ms (×${(deadAfterAck.p99 / Math.max(1, base.p99)).toFixed(2)})`,
      );
  }
  // Drill 6t: the healthy destination's latency beside one throttled to 10/s, against 6tb (the same two, neither limited).
  const throttled = results.find((r) => r.id === "6t")?.latency;
  const throttledBase = results.find((r) => r.id === "6tb")?.latency;
  if (throttled && throttledBase)
    console.log(
      `  drill 6t healthy-URL latency beside a destination throttled to 10/s vs neither limited (6tb): p50 ${throttled.p50} / ${throttledBase.p50} ms (×${(throttled.p50 / Math.max(1, throttledBase.p50)).toFixed(2)}), p99 ${throttled.p99} / ${throttledBase.p99} ms (×${(throttled.p99 / Math.max(1, throttledBase.p99)).toFixed(2)}) (goal ≤ ×1.2)`,
    );
  const lost = results.reduce((t, r) => t + r.lost, 0);
  console.log(lost === 0 ? "[drill] 0 events lost in every drill" : `[drill] ${lost} events LOST`);
  process.exit(lost === 0 && results.every((r) => !r.pendingAtLimit) ? 0 : 1);
}

main().catch((err) => {
  console.error("[drill] failed:", err);
  process.exit(2);
});
