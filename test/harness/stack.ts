/**
 * Real processes for integration tests: `next start` (the production build) and workers,
 * against a fresh database of their own. Nothing here is mocked.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { bundlePath, root } from "../../scripts/lib/build";
import { isAlive } from "../../scripts/lib/parent";
import { bundleNodeArgs, INGEST_NODE_ARGS, TS_NODE_ARGS, withNodeOptions } from "../../scripts/lib/runtime";
import { createTestDatabase } from "./pg";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
/** The first-run setup code every test app is started with (EVENTRAIL_SETUP_CODE). */
export const SETUP_CODE = "test-setup-code-0123456789abcdef";

/**
 * Where freePort picks: below the kernel's ephemeral range. Every `listen(0)` receiver of a test and
 * every outgoing connection takes its port from that range, so a port picked there and freed for a
 * child to bind could be taken by any of them first — seen with the integration and e2e stages side
 * by side: a child failed with EADDRINUSE, and a stack's readiness poll reached another file's
 * receiver. Below the range, only freePort picks, each process walking its own sequence.
 */
function pickRange(): { low: number; high: number } {
  let ephemeralLow = 32_768;
  try {
    ephemeralLow = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {}
  return ephemeralLow > 12_000 ? { low: 10_000, high: ephemeralLow } : { low: 1_024, high: ephemeralLow };
}
const range = pickRange();
let nextPick = range.low + Math.floor(Math.random() * (range.high - range.low));
/** For the harness's own test: the next pick is the port after `port`. */
export function continuePickingAfter(port: number): void {
  nextPick = port;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * Two processes (or two test files' threads) walking their own sequences can still pick the same
 * port inside the moment between freePort's check and the child's bind — seen once in CI, a child
 * failing with EADDRINUSE. So a pick is also reserved, by creating a file named after the port
 * exclusively (`wx`), holding the picker's pid. The reservation lives as long as the picking
 * process: a file whose pid is gone is stale and is taken over.
 */
const reservations = path.join(os.tmpdir(), "eventrail-test-ports");
const reservedHere: string[] = [];
fs.mkdirSync(reservations, { recursive: true });
process.once("exit", () => {
  for (const file of reservedHere) fs.rmSync(file, { force: true });
});

function reserve(port: number): boolean {
  const file = path.join(reservations, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      reservedHere.push(file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = Number(fs.readFileSync(file, "utf8")) || 0;
      if (holder && isAlive(holder)) return false;
      fs.rmSync(file, { force: true });
    }
  }
  return false;
}

/** A port free now and reserved for this process, for a server a child process will bind (pickRange says where from, and why). */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 1_000; tries++) {
    nextPick = range.low + ((nextPick - range.low + 1) % (range.high - range.low));
    if (!reserve(nextPick)) continue;
    if (await bindable(nextPick)) return nextPick;
  }
  throw new Error(`no free port in ${range.low}–${range.high - 1}`);
}

export type Proc = { child: ChildProcess; output: () => string; stop(): Promise<void>; kill(signal?: NodeJS.Signals): Promise<void> };

function launch(cmd: string, args: string[], env: Record<string, string>): Proc {
  const child = spawn(cmd, args, { cwd: root, env: withNodeOptions({ ...process.env, ...env }), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    child,
    output: () => out,
    kill,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const t = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.kill("SIGTERM");
      await exited;
      clearTimeout(t);
    },
  };
}

const baseEnv = (databaseUrl: string, extra: Record<string, string> = {}) => ({
  DATABASE_URL: databaseUrl,
  NODE_ENV: "production",
  EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
  EVENTRAIL_SETUP_CODE: SETUP_CODE,
  EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "1",
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
  ...extra,
});

export async function waitFor<T>(
  fn: () => Promise<T | undefined | false | null>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let lastErr: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
  throw new Error(`timed out waiting for ${opts.what ?? "condition"}${lastErr ? `: ${(lastErr as Error).message}` : ""}`);
}

/**
 * Starts a child on a port freePort picked, and on another pick when the child found it taken. A pick
 * is free and reserved against every picker of this harness, yet something outside it can still bind
 * the port between the pick and the child's bind: seen once in CI, two ingest servers started side by
 * side for test/tracking-plans.int.test.ts, one exiting with EADDRINUSE. Only that failure is tried
 * again, at most twice; a port the caller chose is used as it is.
 */
async function onFreePort<T>(chosen: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  if (chosen !== undefined) return start(chosen);
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= 3 || !(err as Error).message.includes("EADDRINUSE")) throw err;
    }
  }
}

export function startApp(databaseUrl: string, extraEnv: Record<string, string> = {}, chosenPort?: number): Promise<Proc & { url: string }> {
  return onFreePort(chosenPort, (port) => startAppOn(port, databaseUrl, extraEnv));
}

async function startAppOn(port: number, databaseUrl: string, extraEnv: Record<string, string>): Promise<Proc & { url: string }> {
  const proc = launch(
    path.join(root, "node_modules/.bin/next"),
    // Keep-alive well past any pause of a test's own (openssl key generation under a loaded CI can
    // block a test's event loop for seconds): with next's 5 s, the app closed a connection just as a
    // test sent its next request on it ("other side closed", test/alerts.int.test.ts in CI).
    ["start", "-p", String(port), "-H", "127.0.0.1", "--keepAliveTimeout", "65000"],
    baseEnv(databaseUrl, extraEnv),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`app exited: ${proc.output()}`);
      const r = await fetch(`${url}/api/health`);
      return r.status === 200 || r.status === 503;
    },
    { timeoutMs: 60_000, what: "the app to answer" },
  ).catch(async (err) => {
    // An app that never answered must not outlive the test that started it.
    await proc.kill();
    throw err;
  });
  return { ...proc, url };
}

/**
 * How a worker or ingest process is run: from its compiled bundle (dist/<name>.mjs, as `npm start`
 * runs it) when TEST_PROCESSES=bundles — the integration stage's global setup sets it once it has
 * built them; starting one takes half the time tsx takes to compile the sources on each start
 * (docs/decisions/0154-ci-time.md) — else from the sources through tsx (benches, drills, e2e).
 */
function processArgs(name: "worker" | "ingest"): string[] {
  if (process.env.TEST_PROCESSES === "bundles") return bundleNodeArgs(name, bundlePath(name));
  return name === "ingest" ? [...INGEST_NODE_ARGS, "ingest/index.ts"] : [...TS_NODE_ARGS, "worker/index.ts"];
}

/** Starts a worker process and resolves once it reports ready. */
export async function startWorker(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<Proc> {
  // Info level so that the "worker started" line tells us it is ready.
  const proc = launch(process.execPath, processArgs("worker"), baseEnv(databaseUrl, { LOG_LEVEL: "info", ...extraEnv }));
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`worker exited: ${proc.output()}`);
      return proc.output().includes('"worker started"');
    },
    { timeoutMs: 60_000, what: "the worker to start" },
  ).catch(async (err) => {
    await proc.kill();
    throw err;
  });
  return proc;
}

/**
 * Starts an ingest process (ingest/index.ts, docs/architecture.md#processes) on a free port, in
 * front of the web app at `webUrl` when given, and resolves once it reports ready.
 */
export function startIngest(
  databaseUrl: string,
  opts: { webUrl?: string; env?: Record<string, string>; port?: number } = {},
): Promise<Proc & { url: string }> {
  return onFreePort(opts.port, (port) => startIngestOn(port, databaseUrl, opts));
}

async function startIngestOn(
  port: number,
  databaseUrl: string,
  opts: { webUrl?: string; env?: Record<string, string> },
): Promise<Proc & { url: string }> {
  const proc = launch(
    process.execPath,
    processArgs("ingest"),
    baseEnv(databaseUrl, {
      PORT: String(port),
      HOST: "127.0.0.1",
      ...(opts.webUrl ? { EVENTRAIL_WEB_URL: opts.webUrl } : {}),
      ...opts.env,
    }),
  );
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`ingest exited: ${proc.output()}`);
      // Whatever its log level: a GET of a Tracking API path is answered 405 once it listens.
      return (await fetch(`http://127.0.0.1:${port}/v1/track`)).status === 405;
    },
    { timeoutMs: 60_000, what: "the ingest server to start" },
  ).catch(async (err) => {
    await proc.kill();
    throw err;
  });
  return { ...proc, url: `http://127.0.0.1:${port}` };
}

export type Stack = {
  databaseUrl: string;
  app: Proc & { url: string };
  workers: Proc[];
  /** An API client for a fresh workspace of its own. */
  newWorkspace(name?: string): Promise<ApiClient>;
  stop(): Promise<void>;
};

/** A fresh database, the app, and `workers` worker processes (default 1). */
export async function startStack(opts: { workers?: number; env?: Record<string, string> } = {}): Promise<Stack> {
  const db = await createTestDatabase();
  const workers: Proc[] = [];
  let app: (Proc & { url: string }) | undefined;
  try {
    // Started side by side: none needs another to start (each needs only the database), and a start
    // is mostly waiting — for the app to compile its first route, for a worker's queues.
    // The workers know the app's port as `npm start`'s do (EVENTRAIL_PUBLIC_PORT): its capture URLs are theirs.
    const port = await freePort();
    const workerEnv = { EVENTRAIL_PUBLIC_PORT: String(port), ...opts.env };
    const starting = Array.from({ length: opts.workers ?? 1 }, () => startWorker(db.url, workerEnv).then((w) => workers.push(w)));
    const appStart = startApp(db.url, opts.env, port).then((a) => (app = a));
    const settled = await Promise.allSettled([appStart, ...starting]);
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (err) {
    // Leave nothing running behind a failed start.
    await Promise.all(workers.map((w) => w.kill()));
    await app?.kill();
    await db.drop().catch(() => {});
    throw err;
  }
  return {
    databaseUrl: db.url,
    app: app!,
    workers,
    async newWorkspace(name = "test") {
      const admin = new ApiClient(app!.url, ADMIN_TOKEN);
      const res = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name });
      return new ApiClient(app!.url, res.token, res.workspace.id);
    },
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      await app!.stop();
      await db.drop();
    },
  };
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
    readonly workspaceId?: string,
  ) {}

  /** How this client proves who it is; session and operator clients (test/harness/members.ts) override it. */
  protected authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  async request(method: string, p: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(this.baseUrl + p, {
      method,
      headers: { ...this.authHeaders(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers };
  }

  async ok<T>(method: string, p: string, body?: unknown): Promise<T> {
    const r = await this.request(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as T;
  }

  get = <T = any>(p: string) => this.ok<T>("GET", p);
  post = <T = any>(p: string, body?: unknown) => this.ok<T>("POST", p, body ?? {});
  patch = <T = any>(p: string, body: unknown) => this.ok<T>("PATCH", p, body);
  del = <T = any>(p: string) => this.ok<T>("DELETE", p);
}
