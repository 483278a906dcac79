/**
 * `npm start`: embedded Postgres when DATABASE_URL is unset, build if needed, migrate,
 * then the ingest server on the public port, the web app behind it on an internal port, and one
 * worker (docs/architecture.md#processes). Ctrl-C / SIGTERM stops everything cleanly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedDb } from "../lib/platform/embedded-postgres";
import { migrate } from "../lib/platform/migrate";
import { setupLinkIfPending } from "../lib/auth/setup-link";
import { buildIfNeeded, root } from "./lib/build";
import { TS_NODE_ARGS, WEB_NICENESS, withNodeOptions } from "./lib/runtime";

const say = (msg: string) => console.log(`[eventrail] ${msg}`);

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error("the web app exited during start-up");
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
  if (!process.env.DATABASE_URL) {
    const dataDir = path.resolve(root, process.env.EVENTRAIL_DATA_DIR ?? ".data");
    say(`no DATABASE_URL: starting the embedded Postgres (data in ${path.relative(process.cwd(), dataDir) || "."}/pg)`);
    try {
      embedded = await startEmbeddedPostgres(dataDir);
    } catch (err) {
      console.error(`[eventrail] could not start the embedded Postgres: ${(err as Error).message}`);
      process.exit(1);
    }
    process.env.DATABASE_URL = embedded.url;
  }

  const children: ChildProcess[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping…");
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once("exit", () => resolve());
            c.kill("SIGTERM");
            setTimeout(() => c.kill("SIGKILL"), 25_000).unref();
          }),
      ),
    );
    if (embedded) await embedded.stop().catch(() => {});
    say("stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  const url = `http://localhost:${port}`;
  let setupLink: string | null = null;
  try {
    buildIfNeeded(say);
    const { applied } = await migrate(process.env.DATABASE_URL!);
    say(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
    setupLink = await setupLinkIfPending(url);
  } catch (err) {
    console.error(`[eventrail] ${(err as Error).message}`);
    await stopAll(1);
    return;
  }

  const env = withNodeOptions({ ...process.env, NODE_ENV: "production" });
  const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
  // The web app listens on loopback only; the ingest server on the public port passes it all but /v1
  // and appends the client's address to X-Forwarded-For: one more trusted proxy for the web app.
  const webPort = await freeLocalPort();
  const trustedProxies = String(Number(process.env.EVENTRAIL_TRUSTED_PROXIES ?? 0) + 1);
  const web = spawn(bin("next"), ["start", "-p", String(webPort), "-H", "127.0.0.1"], {
    cwd: root,
    env: { ...env, EVENTRAIL_PROCESS: "web", EVENTRAIL_TRUSTED_PROXIES: trustedProxies },
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.push(web);
  // The dashboard yields the CPU to event intake on a shared machine (docs/architecture.md#processes).
  try {
    if (web.pid) os.setPriority(web.pid, WEB_NICENESS);
  } catch {} // a platform that refuses it runs the web app at normal priority
  web.on("exit", (code) => {
    if (!stopping) {
      console.error(`[eventrail] web app exited (${code}); shutting down`);
      void stopAll(1);
    }
  });

  const startIngest = () => {
    const ingest = spawn(process.execPath, [...TS_NODE_ARGS, "ingest/index.ts"], {
      cwd: root,
      env: { ...env, EVENTRAIL_PROCESS: "ingest", PORT: String(port), EVENTRAIL_WEB_URL: `http://127.0.0.1:${webPort}` },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.push(ingest);
    ingest.on("exit", (code) => {
      children.splice(children.indexOf(ingest), 1);
      if (!stopping) {
        console.error(`[eventrail] ingest server exited (${code}); restarting in 2s`);
        setTimeout(() => !stopping && startIngest(), 2_000);
      }
    });
  };
  startIngest();

  const startWorker = () => {
    const worker = spawn(process.execPath, [...TS_NODE_ARGS, "worker/index.ts"], {
      cwd: root,
      env: { ...env, EVENTRAIL_PROCESS: "worker" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.push(worker);
    worker.on("exit", (code) => {
      children.splice(children.indexOf(worker), 1);
      if (!stopping) {
        console.error(`[eventrail] worker exited (${code}); restarting in 2s`);
        setTimeout(() => !stopping && startWorker(), 2_000);
      }
    });
  };
  startWorker();

  try {
    await waitForHealth(url, web);
    say(`ready: ${url}`);
    // A fresh install is claimed with the one-time code in this link (docs/operations.md#first-run).
    if (setupLink) say(`first run: create the owner account at ${setupLink}`);
  } catch (err) {
    console.error(`[eventrail] ${(err as Error).message}`);
    await stopAll(1);
  }
}

void main();
