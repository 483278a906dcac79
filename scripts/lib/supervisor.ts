/**
 * The children `npm start` keeps running (docs/operations.md#supervision): each is a Node script,
 * started with the preload that stops it when start.ts is gone, and restarted with backoff whenever
 * it exits on its own, with a log line that says how it ended.
 */
import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { root } from "./build";

export type ChildSpec = {
  /** how log lines name it: "web app", "worker" */
  name: string;
  /** arguments to `node` (flags, the script, its arguments) */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** a CPU niceness to run it at (the web app yields to ingest: docs/architecture.md#processes) */
  niceness?: number;
  /** lines of the child's stdout not to pass on (Next's banner names its internal port: docs/operations.md#starting) */
  dropLines?: RegExp;
  /** the line of the child's stdout that says it is ready (`ready(name)` resolves at the first); passed on like the others */
  readyLine?: RegExp;
};

export type SupervisorOptions = {
  cwd: string;
  say: (msg: string) => void;
  warn: (msg: string) => void;
  /** Before this is set, a child that exits is a failed start: `onStartFailure` runs, nothing restarts. */
  onStartFailure: (reason: string) => void;
};

/** A child that ran this long before exiting starts its backoff from the beginning again. */
export const STABLE_MS = 60_000;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
/** How long a child may take over its graceful stop (the worker finishes in-flight deliveries: 20 s). */
const STOP_GRACE_MS = 25_000;

/** 1 s, 2 s, 4 s … 30 s for the 1st, 2nd, 3rd … quick exit in a row. */
export function restartDelayMs(quickExitsInARow: number): number {
  return Math.min(FIRST_DELAY_MS * 2 ** Math.max(0, quickExitsInARow - 1), MAX_DELAY_MS);
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

/** Stops a child when start.ts is gone (see the file); by the checkout's path, since start.ts runs bundled from dist/. */
export const PRELOAD = path.join(root, "scripts", "lib", "exit-with-supervisor.cjs");

/** Copies a child's stdout to ours line by line, without the lines `drop` matches. */
function passLines(from: Readable, drop: RegExp | undefined, onLine: (line: string) => void): void {
  let partial = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) onLine(line);
    const kept = drop ? lines.filter((line) => !drop.test(line)) : lines;
    if (kept.length) process.stdout.write(`${kept.join("\n")}\n`);
  });
  from.on("end", () => {
    if (partial && !drop?.test(partial)) process.stdout.write(partial);
  });
}

export function supervise(specs: ChildSpec[], opts: SupervisorOptions) {
  const running = new Map<string, ChildProcess>();
  let started = false;
  let stopping = false;
  // Each readyLine child's first ready line (a restarted child does not count again).
  const readiness = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  for (const spec of specs) {
    let resolve = () => {};
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    readiness.set(spec.name, { promise, resolve });
  }

  const run = (spec: ChildSpec, quickExits: number) => {
    const child = spawn(process.execPath, ["--require", PRELOAD, ...spec.args], {
      cwd: opts.cwd,
      env: { ...spec.env, EVENTRAIL_SUPERVISOR_PID: String(process.pid) },
      stdio: ["ignore", spec.dropLines || spec.readyLine ? "pipe" : "inherit", "inherit"],
    });
    if ((spec.dropLines || spec.readyLine) && child.stdout)
      passLines(child.stdout, spec.dropLines, (line) => {
        if (spec.readyLine?.test(line)) readiness.get(spec.name)?.resolve();
      });
    if (spec.niceness !== undefined && child.pid) {
      try {
        os.setPriority(child.pid, spec.niceness);
      } catch {} // a platform that refuses it runs the child at normal priority
    }
    const since = Date.now();
    running.set(spec.name, child);
    opts.say(`${spec.name} started (pid ${child.pid})`);
    child.once("exit", (code, signal) => {
      running.delete(spec.name);
      if (stopping) return;
      const how = describeExit(code, signal);
      if (!started) return opts.onStartFailure(`the ${spec.name} exited during start-up (${how})`);
      const inARow = Date.now() - since >= STABLE_MS ? 1 : quickExits + 1;
      const delay = restartDelayMs(inARow);
      opts.warn(`${spec.name} exited (${how}) after ${Math.round((Date.now() - since) / 1000)}s; restarting in ${delay / 1000}s`);
      setTimeout(() => !stopping && run(spec, inARow), delay);
    });
  };
  for (const spec of specs) run(spec, 0);

  return {
    /** Resolves once the child has printed its readyLine (never, for a child without one). */
    ready: (name: string): Promise<void> => readiness.get(name)?.promise ?? new Promise<void>(() => {}),
    /** From now on an exit is healed by a restart. */
    markStarted() {
      started = true;
    },
    /** SIGTERM to each child, SIGKILL to any still there after the grace period; resolves when all are gone. */
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(
        [...running.values()].map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once("exit", () => resolve());
              c.kill("SIGTERM");
              setTimeout(() => c.kill("SIGKILL"), STOP_GRACE_MS).unref();
            }),
        ),
      );
    },
  };
}
