/**
 * `npm run drill -- abuse` (issues 12, 34): what an anonymous attacker can do to a running instance
 * while a steady Tracking API load runs. A quiet phase measures /v1/track latency alone; then each
 * attack runs for as long again, alone, and finally all of them at once (scripts/drill/attacks.ts):
 * two slow uploads, 20,000 idle sockets from one address, a 128-client login flood (each attempt
 * from a fresh forwarded address, plus one loop on the owner's account), a capture flood, streamed
 * oversized bodies. Each client has a loopback address of its own; /api/health is probed every
 * 250 ms from another. The quiet phase and the attack phases make a round; DRILL_ABUSE_ROUNDS runs
 * several in turn, and a last quiet phase ends them. A phase's p99 is the median of its rounds', its
 * ratio is taken against the median of the quiet phases' (with the two of one round: the lower), so
 * that the machine's own drift — two quiet phases of one run differed ×1.5–3.5 — neither flatters nor
 * sinks a phase; the quiet p99s side by side show that drift. Reported per phase: /v1 p50/p99 vs quiet (the issue's ceiling: p99 ×2), the
 * slowest /api/health (ceiling: 1 s), what each attack was answered; then the web process's memory
 * and lost events (accepted by /v1 but not delivered and received).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { ADMIN_TOKEN, ApiClient, SETUP_CODE } from "../../test/harness/stack";
import { rssMb } from "../../test/harness/streaming";
import type pg from "pg";
import { fetch as ufetch } from "undici";
import { ADDRESS, agentFrom, ATTACKS, attackersIdle, type Attack, IDLE_SOCKETS, LOGIN_CLIENTS, startAttack, type Tally } from "./attacks";
import type { Stack } from "./harness";
import { finalRows } from "./harness";
import { startDrillReceiver } from "./receiver";
import { computeDrillReport, percentile } from "./report";
import { baseline, type Latency, type PhaseResult, type QuietResult, summarisePhases, type WalRates } from "./abuse-summary";

export { ATTACKS, type Attack };

/** What the app must be started with for this drill: the flood's addresses are believed (one proxy). */
export const ABUSE_APP_ENV = { EVENTRAIL_TRUSTED_PROXIES: "1", EVENTRAIL_SETUP_CODE: SETUP_CODE };

/** A process and its descendants, from /proc (the process alone on a kernel without CONFIG_PROC_CHILDREN). */
function processTree(pid: number): number[] {
  const pids = [pid];
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {} // gone meanwhile
  for (const tid of tids) {
    let children = "";
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
    } catch {}
    for (const child of children ? children.split(/\s+/) : []) pids.push(...processTree(Number(child)));
  }
  return pids;
}

/**
 * Gives every thread of a process, and of its descendants, this niceness. `npm start` renices the
 * web process as soon as it is spawned, so the threads it creates later (libuv's pool, where argon2
 * hashes) inherit it; a process reniced once it is up keeps its existing threads at normal priority
 * (Linux priorities are per thread), so the drill renices each.
 */
export function reniceTree(pid: number, niceness: number): number {
  let n = 0;
  for (const p of processTree(pid)) {
    let tids: string[] = [];
    try {
      tids = fs.readdirSync(`/proc/${p}/task`);
    } catch {} // gone meanwhile
    for (const tid of tids) {
      try {
        os.setPriority(Number(tid), niceness);
        n++;
      } catch {} // a thread that ended meanwhile
    }
  }
  return n;
}

/**
 * DRILL_ABUSE_CPUS=split: the product's processes (every thread of each tree, Postgres's backends
 * included) on CPU 0, the drill — its steady load, its probes and, inherited, every attacker child it
 * starts later — on the other CPUs. The attackers stand for other machines: on one box they would
 * otherwise take the product's CPU (1.1–1.8 cores of 2 in the idle, oversized and all-at-once phases),
 * and the ratio would measure the box more than the edge (docs/decisions/0051-edge-under-abuse.md).
 * The quiet phase runs in the same layout, so every ratio compares like with like.
 */
export function splitCpus(productPids: number[], drillPid: number): string {
  const cpus = os.availableParallelism();
  if (cpus < 2) return "one CPU: nothing to split";
  const others = `1-${cpus - 1}`;
  let processes = 0;
  for (const pid of productPids)
    for (const p of processTree(pid)) {
      // -a: every thread of the process, the ones it has now (libuv's pool, V8's helpers) included.
      execFileSync("taskset", ["-a", "-cp", "0", String(p)], { stdio: "ignore" });
      processes++;
    }
  execFileSync("taskset", ["-a", "-cp", others, String(drillPid)], { stdio: "ignore" });
  return `CPUs split: the product's ${processes} processes on CPU 0, the drill and its attackers on CPU ${others}`;
}

const OWNER = { email: "owner@example.com", password: "correct horse battery" };

export type AbuseResult = {
  /** the quiet phases: one at the start of each round, and one after the last round */
  quiets: QuietResult[];
  /** every attack phase of every round, in the order they ran */
  phases: PhaseResult[];
  rounds: number;
  trackNon200: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  accepted: number;
  lost: number;
  lostExamples: string[];
  seconds: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A process's CPU time so far (user + system), in ms, from /proc: its descendants' too unless
 * `alone` — the live ones', and the ended ones' it or a live descendant has reaped (cutime and
 * cstime: Postgres's backends come and go with their connections).
 */
function cpuMs(pid: number, alone = false): number {
  let ms = 0;
  for (const p of alone ? [pid] : processTree(pid)) {
    try {
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      // utime, stime, cutime, cstime are fields 14–17 of the whole line, 12–15 after "pid (comm) ".
      const ticks = Number(fields[11]) + Number(fields[12]) + (alone ? 0 : Number(fields[13]) + Number(fields[14]));
      ms += (ticks * 1000) / 100;
    } catch {} // gone meanwhile
  }
  return ms;
}

/**
 * A process whose CPU the drill reports: with its descendants, or `alone`; or `rest`: the process
 * with its descendants less every other entry (the drill's tree less the product and its own
 * process: its attackers).
 */
export type Metered = { pid: number; alone?: boolean; rest?: boolean };

/** CPU of each named process over a stretch of time, in % of one core. */
function cpuMeter(processes: Record<string, Metered>) {
  const t0 = performance.now();
  const read = () => {
    const ms = Object.fromEntries(Object.entries(processes).map(([name, m]) => [name, cpuMs(m.pid, m.alone)]));
    for (const [name, m] of Object.entries(processes))
      if (m.rest) for (const [other, o] of Object.entries(processes)) if (other !== name && !o.rest) ms[name] -= ms[other];
    return ms;
  };
  const before = read();
  return (): Record<string, number> => {
    const wall = performance.now() - t0;
    const after = read();
    return Object.fromEntries(Object.keys(processes).map((name) => [name, Math.round((100 * (after[name] - before[name])) / wall)]));
  };
}

/**
 * Postgres's WAL over a stretch of time, a second: commits, WAL flushes (fsyncs; each a wait for every
 * synchronous commit behind it) and WAL bytes, from pg_stat_database, pg_stat_io and pg_stat_wal (PG 18).
 */
async function walMeter(db: pg.Pool) {
  const read = async () => {
    const { rows } = await db.query<{ commits: string; fsyncs: string; bytes: string }>(
      `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits,
              (SELECT coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE object = 'wal') AS fsyncs,
              (SELECT wal_bytes FROM pg_stat_wal) AS bytes`,
    );
    return { commits: Number(rows[0].commits), fsyncs: Number(rows[0].fsyncs), bytes: Number(rows[0].bytes), at: performance.now() };
  };
  const before = await read();
  return async (): Promise<WalRates> => {
    const after = await read();
    const s = (after.at - before.at) / 1000;
    return {
      commits: Math.round((after.commits - before.commits) / s),
      fsyncs: Math.round((after.fsyncs - before.fsyncs) / s),
      kb: Math.round((after.bytes - before.bytes) / 1024 / s),
    };
  };
}

export async function runAbuseDrill(
  stack: Stack,
  opts: {
    appPid: number;
    phaseMs: number;
    ratePerSecond: number;
    attacks?: Attack[];
    processes?: Record<string, Metered>;
    /** how many times the quiet phase and the attack phases run, in turn (default 1) */
    rounds?: number;
    /** false: all at once only, no attack alone */
    alone?: boolean;
  },
): Promise<AbuseResult> {
  const chosen = opts.attacks ?? ATTACKS;
  const rounds = Math.max(1, opts.rounds ?? 1);
  const started = Date.now();
  const base = stack.appUrl;
  const setup = await fetch(`${base}/api/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "192.0.2.1" },
    body: JSON.stringify({ ...OWNER, code: SETUP_CODE }),
  });
  if (setup.status !== 201) throw new Error(`setup answered ${setup.status}`);
  const admin = new ApiClient(base, ADMIN_TOKEN);
  const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "drill abuse" });
  const api = new ApiClient(base, ws.token, ws.workspace.id);
  const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: "steady" });
  const receiver = await startDrillReceiver();
  const dest = await api.post<{ id: string }>("/api/destinations", {
    name: "steady",
    urls: [`${receiver.url}/hook`],
    sourceIds: [source.id],
  });
  const bin = await api.post<{ id: string }>("/api/capture-bins", { name: "flooded" });
  // The steady load: an open loop (a call every 1/rate s, whatever the previous ones are doing).
  const auth = `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`;
  const accepted = new Set<string>();
  let trackNon200 = 0;
  let seq = 0;
  const steady = async (ms: number): Promise<number[]> => {
    const latencies: number[] = [];
    const inFlight: Promise<void>[] = [];
    const until = Date.now() + ms;
    for (let next = Date.now(); next < until; next += 1000 / opts.ratePerSecond) {
      await sleep(Math.max(0, next - Date.now()));
      const messageId = `abuse-${++seq}`;
      const t = performance.now();
      inFlight.push(
        fetch(`${base}/v1/track`, {
          method: "POST",
          headers: { authorization: auth, "content-type": "application/json" },
          body: JSON.stringify({ messageId, userId: `u${seq % 50}`, event: "Steady", properties: { seq } }),
        })
          .then(async (r) => {
            await r.arrayBuffer();
            latencies.push(performance.now() - t);
            if (r.status === 200) accepted.add(messageId);
            else trackNon200++;
          })
          .catch(() => {
            trackNon200++;
          }),
      );
    }
    await Promise.all(inFlight);
    return latencies.sort((a, b) => a - b);
  };
  const summary = (xs: number[]): Latency => ({ p50: Math.round(percentile(xs, 50)), p99: Math.round(percentile(xs, 99)), n: xs.length });

  // Warm up first (JIT, connections, the worker's first rounds): not measured. As long as a phase:
  // after 5 s, the first quiet phase at 200 calls a second still ran the worker at 38 % of a core
  // against 31 % in the quiet phase after the attacks, and its p99 was 41 ms against 19.
  await steady(Math.max(5_000, opts.phaseMs));
  const rssBeforeMb = await rssMb(opts.appPid);
  const quietPhase = async (): Promise<QuietResult> => {
    const meter = cpuMeter(opts.processes ?? {});
    const wal = await walMeter(stack.db);
    const v1 = summary(await steady(opts.phaseMs));
    return { v1, cpu: meter(), wal: await wal() };
  };

  const target = {
    base,
    binId: bin.id,
    apiToken: ws.token,
    trackAuth: auth,
    owner: OWNER,
  };
  let rssPeakMb = rssBeforeMb;
  const healthAgent = agentFrom(ADDRESS.health);
  const quiets: QuietResult[] = [];
  const phases: PhaseResult[] = [];
  const plan: [string, Attack[]][] = opts.alone === false ? [] : chosen.map((a): [string, Attack[]] => [a, [a]]);
  if (chosen.length > 1 || opts.alone === false) plan.push(["all at once", chosen]);
  for (let round = 1; round <= rounds; round++) {
    quiets.push(await quietPhase());
    console.log(formatQuiet(quiets.at(-1)!, `round ${round}/${rounds}`));
    for (const [name, attacks] of plan) {
      const tallies: Partial<Record<Attack, Tally>> = Object.fromEntries(attacks.map((a) => [a, {}]));
      const stops = attacks.map((a) => startAttack(a, target, tallies[a]!));
      let probing = true;
      let healthMaxMs = 0;
      let healthFailed = 0;
      const watch = (async () => {
        while (probing) {
          const t = performance.now();
          const ok = await ufetch(`${base}/api/health`, { dispatcher: healthAgent, signal: AbortSignal.timeout(10_000) })
            .then(async (r) => {
              await r.arrayBuffer();
              return r.status === 200;
            })
            .catch(() => false);
          healthMaxMs = Math.max(healthMaxMs, performance.now() - t);
          if (!ok) healthFailed++;
          rssPeakMb = Math.max(rssPeakMb, await rssMb(opts.appPid));
          await sleep(250);
        }
      })();
      // The attack is under way before the measured load starts.
      await sleep(2_000);
      const meter = cpuMeter(opts.processes ?? {});
      const walOf = await walMeter(stack.db);
      const v1 = summary(await steady(opts.phaseMs));
      const cpu = meter();
      const wal = await walOf();
      probing = false;
      await Promise.all([...stops.map((stop) => stop()), watch]);
      phases.push({ name, v1, healthMaxMs: Math.round(healthMaxMs), healthFailed, tallies, cpu, wal });
      console.log(formatPhase(phases.at(-1)!, quiets.at(-1)!.v1));
    }
  }
  await healthAgent.close();
  // The attackers gone (their sockets closed), the same load alone again.
  quiets.push(await quietPhase());
  console.log(formatQuiet(quiets.at(-1)!, "after the attacks"));

  // Every accepted event must be delivered and received.
  const deadline = Date.now() + 120_000;
  let rows = await finalRows(stack.db, source.id);
  while (Date.now() < deadline && !(rows.length >= accepted.size && rows.every((r) => r.state !== "pending"))) {
    await sleep(1_000);
    rows = await finalRows(stack.db, source.id);
  }
  const report = computeDrillReport({ accepted, destinationIds: [dest.id], rows, receipts: new Map([[dest.id, receiver.receipts]]) });
  await receiver.close();
  return {
    quiets,
    phases,
    rounds,
    trackNon200,
    rssBeforeMb: Math.round(rssBeforeMb),
    rssPeakMb: Math.round(rssPeakMb),
    accepted: accepted.size,
    lost: report.lost,
    lostExamples: report.lostExamples,
    seconds: (Date.now() - started) / 1000,
  };
}

const ratio = (a: number, b: number) => (a / Math.max(1, b)).toFixed(2);

/** A phase's CPU line, none when no process was metered. */
const cpuLine = (cpu: Record<string, number>, wal: WalRates): string[] => [
  ...(Object.keys(cpu).length
    ? [
        `      CPU (% of a core): ${Object.entries(cpu)
          .map(([name, pct]) => `${name} ${pct}`)
          .join(", ")}`,
      ]
    : []),
  `      Postgres a second: ${wal.commits} commits, ${wal.fsyncs} WAL flushes, ${wal.kb} KB of WAL`,
];

function formatQuiet(q: QuietResult, when: string): string {
  return [`  quiet (${when}): /v1 p50 ${q.v1.p50} ms · p99 ${q.v1.p99} ms over ${q.v1.n}`, ...cpuLine(q.cpu, q.wal)].join("\n");
}

/** A phase as it ends, against the quiet phase of its round. */
function formatPhase(p: PhaseResult, quiet: Latency): string {
  const tally = (t: Tally) =>
    Object.entries(t)
      .map(([k, n]) => `${n}× ${k}`)
      .join(", ");
  return [
    `  ${p.name}: /v1 p50 ${p.v1.p50} ms (×${ratio(p.v1.p50, quiet.p50)}) · p99 ${p.v1.p99} ms (×${ratio(p.v1.p99, quiet.p99)}) over ${p.v1.n} · /api/health slowest ${p.healthMaxMs} ms${p.healthFailed ? `, ${p.healthFailed} failed` : ""}`,
    ...cpuLine(p.cpu, p.wal),
    ...Object.entries(p.tallies).map(([a, t]) => `      ${a}: ${tally(t)}`),
  ].join("\n");
}

export function formatAbuse(r: AbuseResult): string {
  const base = baseline(r.quiets);
  return [
    `[drill abuse] attacks beside a steady /v1/track load, each alone, then all at once, ${r.rounds} round(s) (slow: 2 uploads at 10 and 2 KB/s; idle: ${IDLE_SOCKETS} sockets from one address; login: ${LOGIN_CLIENTS} clients from fresh addresses + 1 on the owner; capture: 8 × 64 KB; oversized: streamed 200 MB / 50 MB / 5 MB bodies; attackers ${attackersIdle() ? "under SCHED_IDLE" : "at normal priority"}). Ceilings: /v1 p99 ×2 of quiet, /api/health < 1 s`,
    `  quiet: /v1 p99 ${r.quiets.map((q) => q.v1.p99).join(", ")} ms (one a round, the last after the attacks) → baseline p50 ${base.p50} ms · p99 ${base.p99} ms (their median; of an even count, the lower middle)`,
    ...summarisePhases(r.phases).map(
      (p) =>
        `  ${p.name}: /v1 p99 ${p.p99s.join(", ")} ms → median ${p.p99} ms (×${ratio(p.p99, base.p99)}) · p50 ×${ratio(p.p50, base.p50)} · /api/health slowest ${p.healthMaxMs} ms${p.healthFailed ? `, ${p.healthFailed} failed` : ""}`,
    ),
    `  /v1/track answers other than 200: ${r.trackNon200}`,
    `  web process RSS ${r.rssBeforeMb} MB before, ${r.rssPeakMb} MB at most`,
    `  accepted ${r.accepted} · lost ${r.lost} · ${r.seconds.toFixed(1)} s`,
    ...r.lostExamples.map((l) => `  LOST ${l}`),
  ].join("\n");
}
