/**
 * `npm run bench:footprint` (issue 39 item 1): the memory `npm start` takes on this machine. Starts the
 * real `npm start` on a fresh database (a new one on the local Postgres when one answers on
 * 127.0.0.1:5432, else a fresh embedded one), and reads the RSS of every process it leaves running —
 * npm's own, the supervisor, the ingest server, the web app, the worker — at idle after start, and
 * again after 100,000 events sent to /v1/batch on 127.0.0.1 and delivered to a webhook receiver in a
 * process of its own. Postgres is not counted: it is the database, run beside or elsewhere.
 *
 * Env: FOOTPRINT_EVENTS (100000), FOOTPRINT_RUNS (1; 3 gives the median of 3), FOOTPRINT_IDLE_MS
 * (10000: how long after `ready` the idle reading is taken; the worker's first periodic jobs run in
 * the first minute), FOOTPRINT_NODE_OPTIONS (unset: NODE_OPTIONS for `npm start`, to try V8 flags). Prints each process per run, then `RESULT footprint idle_mb=… after_mb=…` lines.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root } from "../scripts/lib/build";
import { descendants } from "../test/harness/processes";
import { createTestDatabase, postgresAnswers } from "../test/harness/pg";
import { ADMIN_TOKEN, freePort, waitFor } from "../test/harness/stack";
import { startSink } from "./lib/sink-process";

const EVENTS = Number(process.env.FOOTPRINT_EVENTS ?? 100_000);
const RUNS = Number(process.env.FOOTPRINT_RUNS ?? 1);
const IDLE_MS = Number(process.env.FOOTPRINT_IDLE_MS ?? 10_000);
const BATCH = 100;
const CONCURRENCY = 8;

type Reading = { pid: number; name: string; mb: number }[];

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** What a process is, from its command line. */
function nameOf(pid: number): string {
  let cmd = "";
  try {
    cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {}
  if (/npm-cli\.js|\bnpm\b/.test(cmd) && !/\.mjs|next/.test(cmd)) return "npm";
  if (/start\.(mjs|ts)/.test(cmd)) return "supervisor";
  if (/ingest/.test(cmd)) return "ingest";
  if (/next/.test(cmd)) return "web";
  if (/worker/.test(cmd)) return "worker";
  if (/^(\/bin\/)?sh /.test(cmd)) return "sh";
  return cmd.slice(0, 60);
}

function read(npmPid: number): Reading {
  return [npmPid, ...descendants(npmPid)].map((pid) => ({ pid, name: nameOf(pid), mb: rssMb(pid) })).filter((p) => p.mb > 0);
}

const total = (r: Reading) => r.reduce((s, p) => s + p.mb, 0);
const show = (r: Reading) => r.map((p) => `${p.name} ${p.mb.toFixed(0)}`).join(", ");

async function json(url: string, init: RequestInit & { token?: string } = {}): Promise<any> {
  const res = await fetch(url, {
    ...init,
    headers: { "content-type": "application/json", authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`, ...init.headers },
  });
  if (res.status >= 300) throw new Error(`${init.method ?? "GET"} ${url} → ${res.status} ${await res.text()}`);
  return res.json();
}

async function sendEvents(base: string, writeKey: string): Promise<number> {
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`;
  let next = 0;
  let accepted = 0;
  const lane = async () => {
    while (next < EVENTS) {
      const from = next;
      next += BATCH;
      const batch = Array.from({ length: Math.min(BATCH, EVENTS - from) }, (_, i) => ({
        type: "track",
        event: "Footprint Measured",
        userId: `user-${(from + i) % 1000}`,
        messageId: randomUUID(),
        properties: { n: from + i, plan: "pro" },
      }));
      const res = await fetch(`${base}/v1/batch`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: auth },
        body: JSON.stringify({ batch }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/v1/batch answered ${res.status}`);
      accepted += batch.length;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return accepted;
}

async function run(n: number): Promise<{ idle: Reading; after: Reading }> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-footprint-"));
  fs.chmodSync(dataDir, 0o755);
  const db = (await postgresAnswers(2_000)) ? await createTestDatabase({ migrate: false }) : null;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    EVENTRAIL_DATA_DIR: dataDir,
    EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "1",
    LOG_LEVEL: "warn",
  };
  // What an operator's shell would pass: nothing, unless FOOTPRINT_NODE_OPTIONS tries a flag.
  if (process.env.FOOTPRINT_NODE_OPTIONS) env.NODE_OPTIONS = process.env.FOOTPRINT_NODE_OPTIONS;
  else delete env.NODE_OPTIONS;
  if (db) env.DATABASE_URL = db.url;
  else delete env.DATABASE_URL;
  const sink = await startSink();
  const npm = spawn("npm", ["start"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  npm.stdout.on("data", (d) => (out += d));
  npm.stderr.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => npm.once("exit", () => resolve()));
  try {
    const started = Date.now();
    await waitFor(
      async () => {
        if (npm.exitCode !== null) throw new Error(`npm start exited: ${out}`);
        return out.includes("ready: http://localhost");
      },
      { timeoutMs: 600_000, intervalMs: 100, what: "npm start to be ready" },
    );
    console.log(
      `[footprint] run ${n}: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${db ? "local Postgres, fresh database" : "fresh embedded Postgres"})`,
    );
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = read(npm.pid!);
    console.log(`[footprint] run ${n} idle MB: ${show(idle)}; total ${total(idle).toFixed(0)}`);

    const base = `http://127.0.0.1:${port}`;
    const ws = await json(`${base}/api/workspaces`, { method: "POST", body: JSON.stringify({ name: "footprint" }) });
    const source = await json(`${base}/api/sources`, { method: "POST", token: ws.token, body: JSON.stringify({ name: "footprint" }) });
    await json(`${base}/api/destinations`, {
      method: "POST",
      token: ws.token,
      body: JSON.stringify({ name: "sink", urls: [`http://127.0.0.1:${sink.port}/hook`], sourceIds: [source.id] }),
    });
    const t0 = Date.now();
    const accepted = await sendEvents(base, source.writeKey);
    const sentS = (Date.now() - t0) / 1000;
    await waitFor(async () => (await sink.ask<{ count: number }>("count")).count >= accepted, {
      timeoutMs: 900_000,
      intervalMs: 1_000,
      what: `${accepted} deliveries`,
    });
    console.log(
      `[footprint] run ${n}: ${accepted} events accepted in ${sentS.toFixed(1)} s, all delivered after ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    await new Promise((r) => setTimeout(r, 5_000));
    const after = read(npm.pid!);
    console.log(`[footprint] run ${n} after MB: ${show(after)}; total ${total(after).toFixed(0)}`);
    return { idle, after };
  } finally {
    npm.kill("SIGTERM");
    await exited;
    const left = [npm.pid!, ...descendants(npm.pid!)];
    await waitFor(async () => left.every((pid) => !fs.existsSync(`/proc/${pid}`)), { timeoutMs: 60_000, what: "npm start to stop" }).catch(
      () => {},
    );
    sink.stop();
    await db?.drop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const byName = (r: Reading, name: string) => r.filter((p) => p.name === name).reduce((s, p) => s + p.mb, 0);

const results: { idle: Reading; after: Reading }[] = [];
for (let i = 1; i <= RUNS; i++) results.push(await run(i));
console.log(
  `[footprint] load: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} on ${os.cpus().length} cores`,
);
for (const name of ["npm", "sh", "supervisor", "ingest", "web", "worker"]) {
  const idle = median(results.map((r) => byName(r.idle, name)));
  const after = median(results.map((r) => byName(r.after, name)));
  if (idle || after) console.log(`RESULT footprint process=${name} idle_mb=${idle.toFixed(0)} after_mb=${after.toFixed(0)}`);
}
console.log(
  `RESULT footprint idle_mb=${median(results.map((r) => total(r.idle))).toFixed(0)} after_mb=${median(results.map((r) => total(r.after))).toFixed(0)} runs=${RUNS} events=${EVENTS} goals_mb=400/650`,
);
