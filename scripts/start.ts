/**
 * `npm start` (docs/operations.md#starting): the supervisor. Builds if needed, runs the start-up step
 * (embedded Postgres when DATABASE_URL is unset, migrations, the setup link: scripts/prepare.ts),
 * then the supervised children — the ingest server on the public port, the web app behind it on an
 * internal port, and one worker (docs/architecture.md#processes) — each restarted with backoff when
 * it dies. Ctrl-C / SIGTERM, or the exit of whatever started us, stops everything cleanly
 * (docs/operations.md#supervision).
 *
 * It imports none of the product, only Node and scripts/lib, and runs bundled (dist/start.mjs,
 * scripts/run): it is the one process that lives as long as the others, so it stays small
 * (docs/operations.md#footprint).
 *
 * `node dist/start.mjs --args <ingest|worker>` builds if needed and prints the Node arguments that
 * run that process alone (`npm run ingest`, `npm run worker`).
 */
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { bundlePath, buildIfNeeded, root } from "./lib/build";
import { watchParent } from "./lib/parent";
import { stopPostmaster } from "./lib/postmaster";
import { bundleNodeArgs, IDLE_YOUNG_GENERATION, WEB_NICENESS, withoutServerCondition } from "./lib/runtime";
import { type ChildSpec, supervise } from "./lib/supervisor";
import type { Prepared } from "./prepare";

// Whoever reads our output may be gone (npm killed, its pipe closed): a failed write must not
// stop start.ts before it has stopped the children and the embedded Postgres.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

const say = (msg: string) => console.log(`[eventrail] ${msg}`);
const warn = (msg: string) => console.error(`[eventrail] ${msg}`);

// The product does not report to Vercel, and `npm start` does not print Next's notice about it
// (next build and next start inherit this).
process.env.NEXT_TELEMETRY_DISABLED = "1";

/** Next's `- Local: http://127.0.0.1:<port>` and `- Network: …` lines (colours or not). */
const NEXT_URL_LINES = /-\s+(Local|Network):\s+https?:\/\//;

/** A GET's status, through node:http: `fetch` would load undici, ~10 MB more for the process that lives longest. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("timeout", () => req.destroy(new Error("timed out")));
    req.once("error", reject);
  });
}

/**
 * Polls `<url>/api/health` until it answers 200, silently: refusals and 503s are expected while the
 * processes start. Only a deadline passed is an error, naming the last answer.
 */
async function waitForHealth(url: string, deadline: number): Promise<void> {
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      // 200 only: until the worker has installed the queue schema the app answers 503, and "ready"
      // must mean ready to accept events.
      const status = await statusOf(`${url}/api/health`);
      if (status === 200) return;
      last = `HTTP ${status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the web app did not become healthy on ${url} within ${READY_TIMEOUT_MS / 1000}s (last answer: ${last})`);
}

const READY_TIMEOUT_MS = 60_000;

/** Seconds since `from` (a performance.now()), as `npm start`'s timing line writes them. */
const secondsSince = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;

/** A free port on 127.0.0.1 for the web app, which only the ingest server in front talks to. */
function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs scripts/prepare.ts (bundled) and resolves with what it reports; rejects when it exits without. */
function prepare(publicUrl: string, onChild: (kill: () => void) => void): Promise<Prepared> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, bundleNodeArgs("prepare", bundlePath("prepare")).concat(publicUrl), {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    onChild(() => child.kill("SIGTERM"));
    let prepared: Prepared | undefined;
    child.once("message", (m) => (prepared = m as Prepared));
    child.once("exit", (code, signal) =>
      prepared ? resolve(prepared) : reject(new Error(`start-up failed (${signal ? `killed by ${signal}` : `exit code ${code}`})`)),
    );
  });
}

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  // The embedded Postgres' data directory, when DATABASE_URL is unset: prepare starts it there.
  const dataDir = process.env.DATABASE_URL ? null : path.resolve(root, process.env.EVENTRAIL_DATA_DIR ?? ".data");
  let children: ReturnType<typeof supervise> | undefined;
  let stopPreparing: (() => void) | undefined;
  let preparing: Promise<unknown> | undefined;
  let stopping = false;
  const stopAll = async (code: number, why: string) => {
    if (stopping) return;
    stopping = true;
    say(`stopping (${why})…`);
    stopPreparing?.();
    await preparing?.catch(() => {});
    await children?.stop();
    if (dataDir) await stopPostmaster(dataDir).catch((err) => warn((err as Error).message));
    say("stopped");
    process.exit(code);
  };
  // npm (or sh) may exit on SIGTERM without passing it on: its exit is our signal.
  watchParent(() => void stopAll(0, "the process that started npm start exited"));
  process.on("SIGINT", () => void stopAll(0, "SIGINT"));
  process.on("SIGTERM", () => void stopAll(0, "SIGTERM"));
  process.on("SIGHUP", () => void stopAll(0, "SIGHUP"));

  const url = `http://localhost:${port}`;
  // Each step's time goes into the `ready:` line (docs/operations.md#starting).
  const started = performance.now();
  const steps: string[] = [];
  let prepared: Prepared;
  try {
    const built = buildIfNeeded(say);
    if (built) steps.push(`${built === "app" ? "build" : "compile"} ${secondsSince(started)}`);
    if (stopping) return;
    const preparingFrom = performance.now();
    preparing = prepare(url, (kill) => (stopPreparing = kill));
    prepared = (await preparing) as Prepared;
    steps.push(`database ${secondsSince(preparingFrom)}`);
  } catch (err) {
    warn((err as Error).message);
    await stopAll(1, "start-up failed");
    return;
  }
  if (stopping) return;

  // The web app listens on loopback only; the ingest server on the public port passes it all but /v1
  // and appends the client's address to X-Forwarded-For: one more trusted proxy for the web app.
  const webPort = await freeLocalPort();
  // Every process knows the public port (the app's own capture URLs) and the web app's internal
  // origin (never a webhook target): docs/webhooks.md#outbound-safety.
  const env = withoutServerCondition({
    ...process.env,
    DATABASE_URL: prepared.databaseUrl,
    NODE_ENV: "production",
    EVENTRAIL_PUBLIC_PORT: String(port),
    EVENTRAIL_WEB_URL: `http://127.0.0.1:${webPort}`,
  });
  const trustedProxies = String(Number(process.env.EVENTRAIL_TRUSTED_PROXIES ?? 0) + 1);
  // Each child is a Node script; adding one is one more entry (scripts/lib/supervisor.ts).
  const specs: ChildSpec[] = [
    {
      name: "ingest server",
      args: bundleNodeArgs("ingest", bundlePath("ingest")),
      env: { ...env, EVENTRAIL_PROCESS: "ingest", PORT: String(port), EVENTRAIL_WEB_URL: `http://127.0.0.1:${webPort}` },
    },
    {
      name: "web app",
      // Not through node_modules/.bin: `next` runs under our node so the supervisor's preload applies.
      args: [IDLE_YOUNG_GENERATION, path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(webPort), "-H", "127.0.0.1"],
      env: {
        ...env,
        EVENTRAIL_PROCESS: "web",
        EVENTRAIL_TRUSTED_PROXIES: trustedProxies,
        EVENTRAIL_DB_SESSION_NICENESS: process.env.EVENTRAIL_DB_SESSION_NICENESS ?? String(WEB_NICENESS),
      },
      // The dashboard yields the CPU to event intake on a shared machine, and so do its database
      // sessions (docs/architecture.md#processes).
      niceness: WEB_NICENESS,
      // Next's banner names its loopback port, which only the ingest server uses: the URL to open
      // is the one `ready:` prints.
      dropLines: NEXT_URL_LINES,
    },
    {
      name: "worker",
      args: bundleNodeArgs("worker", bundlePath("worker")),
      env: { ...env, EVENTRAIL_PROCESS: "worker" },
      // Its queues' handlers all registered: the app's health answers 200 as soon as the queue schema
      // exists, which may be before this line, and the setup link must come after it.
      readyLine: /"msg":"worker started"/,
    },
  ];
  const processesFrom = performance.now();
  children = supervise(specs, { cwd: root, say, warn, onStartFailure: (reason) => void stopAll(1, reason) });

  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    // The web app on its own port first: polled through the ingest server while it starts, each
    // refused request would be logged there as a failure to reach it. Then the public port.
    await waitForHealth(`http://127.0.0.1:${webPort}`, deadline);
    await waitForHealth(url, deadline);
    // The worker's own start line, when its log level prints it: the setup link is the last line (issue 53).
    if (["trace", "debug", "info", undefined].includes(process.env.LOG_LEVEL))
      await Promise.race([children.ready("worker"), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
    if (stopping) return;
    children.markStarted();
    steps.push(`processes ${secondsSince(processesFrom)}`);
    say(`ready: ${url} (started in ${secondsSince(started)}: ${steps.join(", ")})`);
    // A fresh install is claimed with the one-time code in this link (docs/operations.md#first-run);
    // the last line printed, so nothing scrolls it away (`npm run setup-link` prints it again).
    if (prepared.setupLink) say(`first run: create the owner account at ${prepared.setupLink}`);
  } catch (err) {
    warn((err as Error).message);
    await stopAll(1, "start-up failed");
  }
}

/** `--args <name>`: build if needed, then print the arguments to `node` for that process, one a line. */
function printArgs(name: string) {
  if (name !== "ingest" && name !== "worker") {
    warn(`--args takes ingest or worker, not ${name}`);
    process.exit(2);
  }
  buildIfNeeded(warn, { outputToStderr: true });
  console.log(bundleNodeArgs(name, bundlePath(name)).join("\n"));
}

if (process.argv[2] === "--args") printArgs(process.argv[3] ?? "");
else void main();
