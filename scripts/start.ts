/**
 * `npm start`: embedded Postgres when DATABASE_URL is unset, build if needed, migrate, then the
 * supervised children — the ingest server on the public port, the web app behind it on an internal
 * port, and one worker (docs/architecture.md#processes) — each restarted with backoff when it dies.
 * Ctrl-C / SIGTERM, or the exit of whatever started us, stops everything cleanly
 * (docs/operations.md#supervision).
 */
import net from "node:net";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedDb } from "../lib/platform/embedded-postgres";
import { migrate } from "../lib/platform/migrate";
import { setupLinkIfPending } from "../lib/auth/setup-link";
import { buildIfNeeded, root } from "./lib/build";
import { watchParent } from "./lib/parent";
import { INGEST_NODE_ARGS, TS_NODE_ARGS, WEB_NICENESS, withNodeOptions } from "./lib/runtime";
import { type ChildSpec, supervise } from "./lib/supervisor";

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

async function waitForHealth(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      // 200 only: until the worker has installed the queue schema the app answers 503, and "ready"
      // must mean ready to accept events.
      const res = await fetch(`${url}/api/health`);
      if (res.status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the web app did not become healthy on ${url} within ${timeoutMs / 1000}s`);
}

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

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  let embedded: EmbeddedDb | undefined;
  let children: ReturnType<typeof supervise> | undefined;
  let stopping = false;
  const stopAll = async (code: number, why: string) => {
    if (stopping) return;
    stopping = true;
    say(`stopping (${why})…`);
    await children?.stop();
    if (embedded) await embedded.stop().catch(() => {});
    say("stopped");
    process.exit(code);
  };
  // npm (or sh) may exit on SIGTERM without passing it on: its exit is our signal.
  watchParent(() => void stopAll(0, "the process that started npm start exited"));

  if (!process.env.DATABASE_URL) {
    const dataDir = path.resolve(root, process.env.EVENTRAIL_DATA_DIR ?? ".data");
    say(`no DATABASE_URL: starting the embedded Postgres (data in ${path.relative(process.cwd(), dataDir) || "."}/pg)`);
    try {
      embedded = await startEmbeddedPostgres(dataDir);
    } catch (err) {
      warn(`could not start the embedded Postgres: ${(err as Error).message}`);
      process.exit(1);
    }
    process.env.DATABASE_URL = embedded.url;
  }
  // After the embedded Postgres: a first run's initdb removes every SIGINT/SIGTERM listener
  // (lib/platform/embedded-postgres.ts).
  process.on("SIGINT", () => void stopAll(0, "SIGINT"));
  process.on("SIGTERM", () => void stopAll(0, "SIGTERM"));
  process.on("SIGHUP", () => void stopAll(0, "SIGHUP"));

  const url = `http://localhost:${port}`;
  let setupLink: string | null = null;
  try {
    buildIfNeeded(say);
    const { applied } = await migrate(process.env.DATABASE_URL!);
    say(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
    setupLink = await setupLinkIfPending(url);
  } catch (err) {
    warn((err as Error).message);
    await stopAll(1, "start-up failed");
    return;
  }
  if (stopping) return;

  const env = withNodeOptions({ ...process.env, NODE_ENV: "production" });
  // The web app listens on loopback only; the ingest server on the public port passes it all but /v1
  // and appends the client's address to X-Forwarded-For: one more trusted proxy for the web app.
  const webPort = await freeLocalPort();
  const trustedProxies = String(Number(process.env.EVENTRAIL_TRUSTED_PROXIES ?? 0) + 1);
  // Each child is a Node script; adding one is one more entry (scripts/lib/supervisor.ts).
  const specs: ChildSpec[] = [
    {
      name: "ingest server",
      args: [...INGEST_NODE_ARGS, "ingest/index.ts"],
      env: { ...env, EVENTRAIL_PROCESS: "ingest", PORT: String(port), EVENTRAIL_WEB_URL: `http://127.0.0.1:${webPort}` },
    },
    {
      name: "web app",
      // Not through node_modules/.bin: `next` runs under our node so the supervisor's preload applies.
      args: [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(webPort), "-H", "127.0.0.1"],
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
    { name: "worker", args: [...TS_NODE_ARGS, "worker/index.ts"], env: { ...env, EVENTRAIL_PROCESS: "worker" } },
  ];
  children = supervise(specs, { cwd: root, say, warn, onStartFailure: (reason) => void stopAll(1, reason) });

  try {
    await waitForHealth(url);
    if (stopping) return;
    children.markStarted();
    say(`ready: ${url}`);
    // A fresh install is claimed with the one-time code in this link (docs/operations.md#first-run).
    if (setupLink) say(`first run: create the owner account at ${setupLink}`);
  } catch (err) {
    warn((err as Error).message);
    await stopAll(1, "start-up failed");
  }
}

void main();
