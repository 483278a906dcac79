/**
 * `npm run drill -- failover` (docs/decisions/0090-replicated-postgres-failover.md): what happens
 * to acknowledged events when the database fails over. Not run in CI (it needs Debian's
 * PostgreSQL server binaries and haproxy, and takes a minute per mode).
 *
 * For each mode (synchronous standby, then asynchronous): a primary and a streaming standby of
 * Debian's Postgres on free ports in a temp dir, haproxy as the one address DATABASE_URL names,
 * the web app behind the ingest server and one worker on that address, and a webhook receiver on
 * 127.0.0.1. Events flow through /v1/batch; mid-run the primary is killed with SIGKILL, the
 * standby promoted and haproxy restarted pointing at it (as an operator's failover does). Prints
 * the events acknowledged with 200, how many of them the new primary holds (lost = the rest),
 * duplicates delivered, and the seconds until /v1 accepts again and until deliveries resume.
 *   DRILL_FAILOVER_EVENTS (3000), DRILL_FAILOVER_MODES (sync,async)
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { migrate } from "../../lib/platform/migrate";
import { ADMIN_TOKEN, freePort, startApp, startIngest, startWorker, waitFor, type Proc } from "../../test/harness/stack";
import { startDrillReceiver } from "./receiver";
import { sendEvents } from "./sender";

const PG_BIN =
  process.env.DRILL_PG_BIN ??
  `/usr/lib/postgresql/${fs.existsSync("/usr/lib/postgresql") ? (fs.readdirSync("/usr/lib/postgresql").sort().at(-1) ?? "15") : "15"}/bin`;
const EVENTS = Number(process.env.DRILL_FAILOVER_EVENTS ?? 3000);
const RETRIES = { EVENTRAIL_RETRY_BASE_MS: "200", EVENTRAIL_RETRY_MAX_MS: "2000" };
const ENV = { ...RETRIES, LOG_LEVEL: "warn" };

export type FailoverMode = "sync" | "async";
export type FailoverResult = {
  mode: FailoverMode;
  acknowledged: number;
  stored: number;
  lost: number;
  delivered: number;
  duplicates: number;
  refusals: number;
  ingestBackSeconds: number;
  deliveriesBackSeconds: number;
};

/** Runs a Postgres binary as the `postgres` user when we are root (Postgres refuses to run as root). */
export function postgresAs(bin: string, args: string[]): string[] {
  const full = path.join(PG_BIN, bin);
  return process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", full, ...args] : [full, ...args];
}
function run(bin: string, args: string[]) {
  const [cmd, ...rest] = postgresAs(bin, args);
  execFileSync(cmd, rest, { stdio: "pipe" });
}

/** Debian's Postgres on `port`, listening on `listen` (comma-separated addresses). */
export async function startPostgres(dir: string, port: number, listen = "127.0.0.1"): Promise<void> {
  run("pg_ctl", ["-D", dir, "-o", `-p ${port} -k ${dir} -c listen_addresses=${listen}`, "-l", path.join(dir, "log"), "-w", "start"]);
}

function postmasterPid(dir: string): number {
  return Number(fs.readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** haproxy in TCP mode on `port`, to one Postgres server. */
function startFront(dir: string, port: number, to: number): ChildProcess {
  const cfg = path.join(dir, `haproxy-${to}.cfg`);
  fs.writeFileSync(
    cfg,
    [
      "global",
      "  maxconn 512",
      "defaults",
      "  mode tcp",
      "  timeout connect 2s",
      "  timeout client 1h",
      "  timeout server 1h",
      "frontend pg",
      `  bind 127.0.0.1:${port}`,
      "  default_backend db",
      "backend db",
      `  server db 127.0.0.1:${to}`,
      "",
    ].join("\n"),
  );
  const child = spawn("haproxy", ["-db", "-f", cfg], { stdio: "ignore" });
  return child;
}

async function stopFront(front: ChildProcess) {
  if (front.exitCode !== null || front.signalCode !== null) return;
  const exited = new Promise((r) => front.once("exit", r));
  front.kill("SIGKILL");
  await exited;
}

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function runFailoverDrill(mode: FailoverMode): Promise<FailoverResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `eventrail-failover-${mode}-`));
  const primaryDir = path.join(dir, "primary");
  const standbyDir = path.join(dir, "standby");
  fs.mkdirSync(primaryDir, { mode: 0o700 });
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  const [primaryPort, standbyPort, frontPort] = [await freePort(), await freePort(), await freePort()];
  const procs: Proc[] = [];
  let front: ChildProcess | undefined;
  const receiver = await startDrillReceiver();
  try {
    run("initdb", ["-D", primaryDir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    fs.appendFileSync(
      path.join(primaryDir, "postgresql.conf"),
      [
        "wal_level = replica",
        "max_wal_senders = 5",
        "hot_standby = on",
        "synchronous_commit = on",
        `synchronous_standby_names = '${mode === "sync" ? "standby1" : ""}'`,
        "",
      ].join("\n"),
    );
    fs.appendFileSync(path.join(primaryDir, "pg_hba.conf"), "host replication all 127.0.0.1/32 trust\n");
    await startPostgres(primaryDir, primaryPort);
    run("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres", "-D", standbyDir, "-R", "-X", "stream"]);
    fs.appendFileSync(
      path.join(standbyDir, "postgresql.auto.conf"),
      `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=standby1'\n`,
    );
    await startPostgres(standbyDir, standbyPort);
    const primaryAdmin = `postgresql://postgres@127.0.0.1:${primaryPort}/postgres`;
    await waitFor(
      async () => {
        const c = new pg.Client({ connectionString: primaryAdmin });
        await c.connect();
        const { rows } = await c.query("SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'");
        await c.end();
        return rows[0]?.sync_state === (mode === "sync" ? "sync" : "async");
      },
      { timeoutMs: 30_000, what: `the standby to stream (${mode})` },
    );
    const admin = new pg.Client({ connectionString: primaryAdmin });
    await admin.connect();
    await admin.query("CREATE DATABASE eventrail");
    await admin.end();

    front = startFront(dir, frontPort, primaryPort);
    const url = `postgresql://postgres@127.0.0.1:${frontPort}/eventrail`;
    await waitFor(() => reachable(url), { timeoutMs: 15_000, what: "haproxy" });
    await migrate(url);
    const web = await startApp(url, ENV);
    procs.push(web);
    const ingest = await startIngest(url, { webUrl: web.url, env: ENV });
    procs.push(ingest);
    // The worker logs at info: its "worker started" line is how startWorker knows it is up.
    procs.push(await startWorker(url, RETRIES));

    const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const ws = (await (
      await fetch(`${ingest.url}/api/workspaces`, { method: "POST", headers: adminHeaders, body: '{"name":"failover"}' })
    ).json()) as { token: string };
    const auth = { authorization: `Bearer ${ws.token}`, "content-type": "application/json" };
    const source = (await (
      await fetch(`${ingest.url}/api/sources`, { method: "POST", headers: auth, body: '{"name":"failover"}' })
    ).json()) as {
      id: string;
      writeKey: string;
    };
    const dest = await fetch(`${ingest.url}/api/destinations`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "receiver", urls: [receiver.url], enabled: true, sourceIds: [source.id] }),
    });
    if (dest.status !== 201 && dest.status !== 200) throw new Error(`destination: ${dest.status} ${await dest.text()}`);

    // 100-event batches from two lanes, one every 200 ms per lane (~1,000 events/s); the primary
    // dies once a third of the events are delivered, with batches in flight.
    console.log(`[drill] failover (${mode}): app, ingest and worker up on ${url}; sending ${EVENTS} events`);
    const sending = sendEvents({
      baseUrl: ingest.url,
      writeKey: source.writeKey,
      tag: `fo-${mode}`,
      count: EVENTS,
      concurrency: 2,
      spacingMs: 200,
      deadline: Date.now() + 180_000,
    });
    await waitFor(async () => receiver.receipts.size >= EVENTS / 3, { timeoutMs: 60_000, what: "a third of the events delivered" });

    console.log(`[drill] failover (${mode}): ${receiver.receipts.size} delivered, killing the primary`);
    const killedAt = Date.now();
    process.kill(postmasterPid(primaryDir), "SIGKILL");
    await stopFront(front);
    run("pg_ctl", ["-D", standbyDir, "-w", "promote"]);
    // The promoted standby inherited synchronous_standby_names; with no standby of its own, every
    // commit would wait for one forever. An operator's failover clears it (or attaches a new standby).
    const promoted = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${standbyPort}/postgres` });
    await promoted.connect();
    await promoted.query("ALTER SYSTEM SET synchronous_standby_names = ''");
    await promoted.query("SELECT pg_reload_conf()");
    await promoted.end();
    front = startFront(dir, frontPort, standbyPort);
    console.log(`[drill] failover (${mode}): primary killed, standby promoted, haproxy repointed in ${Date.now() - killedAt} ms`);
    const deliveredBefore = receiver.receipts.size;

    // Seconds until /v1 answers 200 again, and until a new delivery arrives.
    let lastProbe = "";
    const probe = async () => {
      const r = await fetch(`${ingest.url}/v1/track`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`, "content-type": "application/json" },
        body: JSON.stringify({ userId: "probe", event: "Probe", messageId: `probe-${mode}-${Date.now()}` }),
      }).catch((err: Error) => {
        lastProbe = `${err.message} (${(err.cause as Error | undefined)?.message ?? ""}); ingest exit ${ingest.child.exitCode ?? ingest.child.signalCode}; front ${front?.exitCode}`;
        return null;
      });
      if (r) lastProbe = `${r.status} ${await r.text()}`;
      return r?.status === 200;
    };
    await waitFor(probe, { timeoutMs: 120_000, intervalMs: 200, what: "/v1 to accept again" }).catch((err: Error) => {
      throw new Error(`${err.message}; it answered: ${lastProbe}\ningest: ${ingest.output().slice(-3000)}`);
    });
    const ingestBackSeconds = (Date.now() - killedAt) / 1000;
    await waitFor(async () => receiver.receipts.size > deliveredBefore, {
      timeoutMs: 120_000,
      intervalMs: 100,
      what: "deliveries to resume",
    });
    const deliveriesBackSeconds = (Date.now() - killedAt) / 1000;

    const sent = await sending;
    const acked = [...sent.accepted];
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM messages WHERE source_id = $1 AND message_id = ANY($2::text[])",
      [source.id, acked],
    );
    const stored = rows[0].n;
    // Every stored event delivered (or given up): wait for the receiver to have them all.
    await waitFor(async () => acked.every((id) => receiver.receipts.has(id)) || false, {
      timeoutMs: 120_000,
      what: "every acknowledged event delivered",
    }).catch(() => {});
    await check.end();
    const delivered = acked.filter((id) => receiver.receipts.has(id)).length;
    const duplicates = acked.reduce((n, id) => n + Math.max(0, (receiver.receipts.get(id) ?? 0) - 1), 0);
    return {
      mode,
      acknowledged: acked.length,
      stored,
      lost: acked.length - stored,
      delivered,
      duplicates,
      refusals: sent.refusals,
      ingestBackSeconds,
      deliveriesBackSeconds,
    };
  } finally {
    for (const p of procs.reverse()) await p.kill().catch(() => {});
    if (front) await stopFront(front);
    await receiver.close();
    for (const d of [primaryDir, standbyDir]) {
      try {
        run("pg_ctl", ["-D", d, "-m", "immediate", "stop"]);
      } catch {}
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatFailover(r: FailoverResult): string {
  return [
    `[drill] failover, ${r.mode === "sync" ? "synchronous standby" : "asynchronous standby"}:`,
    `  acknowledged with 200: ${r.acknowledged}; stored after failover: ${r.stored}; LOST: ${r.lost}`,
    `  delivered: ${r.delivered}; duplicates delivered: ${r.duplicates}; batches refused (503/network) and resent by the client: ${r.refusals}`,
    `  /v1 accepting again after ${r.ingestBackSeconds.toFixed(1)} s; deliveries resumed after ${r.deliveriesBackSeconds.toFixed(1)} s`,
    `RESULT failover mode=${r.mode} acknowledged=${r.acknowledged} stored=${r.stored} lost=${r.lost} duplicates=${r.duplicates} ingest_back_s=${r.ingestBackSeconds.toFixed(1)} deliveries_back_s=${r.deliveriesBackSeconds.toFixed(1)}`,
  ].join("\n");
}
