/**
 * CPU time spent per party during a benchmark phase, read from /proc: the app's process tree,
 * the Postgres backends serving the benchmark's database, and the benchmark process itself.
 * On a shared machine wall-clock throughput depends on the neighbours; CPU per event does not.
 */
import fs from "node:fs";
import type pg from "pg";

const TICK_MS = 10; // CLK_TCK is 100 on Linux

function statOf(pid: number): { ppid: number; ticks: number; reaped: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name: state ppid … utime(14) stime(15) cutime(16) cstime(17).
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** A pid and all its descendants. */
export function processTree(rootPid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = statOf(pid);
    if (s) parents.set(s.ppid, [...(parents.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of parents.get(pid) ?? []) walk(c);
  };
  walk(rootPid);
  return out;
}

async function backendPids(db: pg.Pool): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
  return rows.map((r) => r.pid);
}

type Snapshot = { app: Map<number, number>; pg: Map<number, number>; server: Map<number, number>; bench: NodeJS.CpuUsage };

async function snapshot(db: pg.Pool, appPid: number | null, serverPid: number | null): Promise<Snapshot> {
  const read = (pids: number[]) => new Map(pids.map((p) => [p, statOf(p)?.ticks ?? 0]));
  return {
    app: read(appPid ? processTree(appPid) : []),
    pg: read(await backendPids(db)),
    // Plus what the server's children that exited meanwhile used (autovacuum workers, backends of
    // closed connections), which the postmaster collected when it reaped them.
    server: serverPid ? new Map([...read(processTree(serverPid)), [-1, statOf(serverPid)?.reaped ?? 0]]) : new Map(),
    bench: process.cpuUsage(),
  };
}

const deltaMs = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, ticks]) => sum + (ticks - (before.get(pid) ?? 0)), 0) * TICK_MS;

/**
 * A process tree's CPU in the window, where key -1 holds the CPU of the children its root reaped:
 * a child that exited in the window is counted by the reaped total, less what it had used before.
 */
const treeDeltaMs = (before: Map<number, number>, after: Map<number, number>) =>
  deltaMs(before, after) - [...before].reduce((sum, [pid, ticks]) => sum + (pid !== -1 && !after.has(pid) ? ticks : 0), 0) * TICK_MS;

export type CpuUse = { appMs: number; pgMs: number; serverMs: number; benchMs: number };

/**
 * Starts measuring; the returned function stops and gives the CPU milliseconds each party used.
 * `serverPid`, the postmaster of a Postgres the benchmark has to itself: `serverMs` is then the whole
 * server's CPU — backends, and the checkpointer, WAL writer, I/O workers and autovacuum besides.
 */
export async function measureCpu(db: pg.Pool, appPid: number | null, serverPid: number | null = null): Promise<() => Promise<CpuUse>> {
  const before = await snapshot(db, appPid, serverPid);
  return async () => {
    const after = await snapshot(db, appPid, serverPid);
    const bench = process.cpuUsage(before.bench);
    return {
      appMs: deltaMs(before.app, after.app),
      pgMs: deltaMs(before.pg, after.pg),
      serverMs: treeDeltaMs(before.server, after.server),
      benchMs: (bench.user + bench.system) / 1000,
    };
  };
}
