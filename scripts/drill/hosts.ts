/**
 * `npm run drill -- hosts` (docs/operations.md#several-hosts): two hosts on one database. Not run in
 * CI: it needs root (network namespaces), Debian's PostgreSQL server binaries and haproxy, and takes
 * about two minutes.
 *
 * Two "hosts", each a network namespace of its own (er-h1, er-h2, joined to this one by a veth pair),
 * each running `npm start` with DATABASE_URL as docs/operations.md says (an ingest server on its
 * public port, the web app, one worker); a Debian Postgres in a temp dir listening on this side of
 * both pairs; haproxy on 127.0.0.1 in front of both hosts' public ports (HTTP, health-checked); a
 * webhook receiver on this side. A real client (@segment/analytics-node, retrying as it does) sends
 * through haproxy. Once a third is delivered, host 2 is killed (SIGKILL of every process in its
 * namespace), and started again ten seconds later. Prints and checks:
 * - acknowledged events (the client's callback without error) all stored and all delivered: lost 0;
 * - duplicates: 2xx receipts beyond the first, and how many of them the request log shows as
 *   attempts (a worker killed between a request and its record sends again: at least once);
 * - a destination limited to 20 deliveries a second, fed ~50 a second from both hosts' workers,
 *   never above its token bucket (20 × (1 + span) in any span) by the request log's start times,
 *   allowing 100 ms between a worker's take and its start stamp; at the receiver, what arrives is
 *   reported (there, send latency under load bunches requests beyond the bucket: reported, not judged);
 * - a destination with per-user ordering gets each user's events in the order they arrived (the
 *   request log's delivery ids), whichever host took them and through the kill;
 * - each cron queue (alerts, audience schedule) created at most one job per minute, however many
 *   workers schedule it, over at least three minutes.
 *   DRILL_HOSTS_EVENTS (3000)
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Analytics } from "@segment/analytics-node";
import pg from "pg";
import { ADMIN_TOKEN, freePort, waitFor } from "../../test/harness/stack";
import { postgresAs, startPostgres } from "./failover";
import { startDrillReceiver } from "./receiver";

const EVENTS = Number(process.env.DRILL_HOSTS_EVENTS ?? 3000);
const LIMIT_PER_SECOND = 20;
/** The send latency a worker's requests may vary by, between its take of the bucket and their arrival. */
const JITTER_MS = 250;
const ROOT = path.resolve(import.meta.dirname, "../..");
const HOSTS = [1, 2] as const;
const ns = (i: number) => `er-h${i}`;
/** This side of host i's veth pair, and the host's side. */
const near = (i: number) => `10.201.${i}.1`;
const far = (i: number) => `10.201.${i}.2`;

export type HostsResult = {
  acknowledged: number;
  failedAtClient: number;
  stored: number;
  lost: number;
  delivered: number;
  duplicates: number;
  duplicatesLogged: number;
  limited: { received: number; worstSpan: string; overLimit: number; overWithJitter: number; byLog: string; overByLog: number };
  /** the ordered destination: users, events delivered, and pairs of one user's events that arrived out of order */
  ordering: { users: number; delivered: number; outOfOrder: number };
  cronTicks: { queue: string; minutes: number; most: number }[];
  killedAfter: number;
  backAfterSeconds: number;
};

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });

function netUp() {
  netDown();
  for (const i of HOSTS) {
    ip("netns", "add", ns(i));
    ip("link", "add", `er-v${i}`, "type", "veth", "peer", "name", `er-p${i}`);
    ip("link", "set", `er-p${i}`, "netns", ns(i));
    ip("addr", "add", `${near(i)}/24`, "dev", `er-v${i}`);
    ip("link", "set", `er-v${i}`, "up");
    ip("-n", ns(i), "addr", "add", `${far(i)}/24`, "dev", `er-p${i}`);
    ip("-n", ns(i), "link", "set", `er-p${i}`, "up");
    ip("-n", ns(i), "link", "set", "lo", "up");
    ip("-n", ns(i), "route", "add", "default", "via", near(i));
  }
}

function netDown() {
  for (const i of HOSTS) {
    try {
      ip("netns", "del", ns(i)); // takes its end of the pair, and so the pair, with it
    } catch {}
    try {
      ip("link", "del", `er-v${i}`);
    } catch {}
  }
}

/** Every process in host i's namespace, killed at once: a host that loses power. */
function killHost(i: number) {
  const pids = execFileSync("ip", ["netns", "pids", ns(i)], { encoding: "utf8" })
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  return pids.length;
}

type Host = { child: ChildProcess; output: () => string };

/** `npm start` in host i's namespace, as docs/operations.md#several-hosts says; resolves once it prints ready. */
async function startHost(i: number, databaseUrl: string): Promise<Host> {
  let out = "";
  const child = spawn("ip", ["netns", "exec", ns(i), "npm", "start"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: "3000",
      HOST: "0.0.0.0",
      EVENTRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
      // The receiver is on this side of the pair, a private address.
      EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "1",
      EVENTRAIL_RETRY_BASE_MS: "200",
      EVENTRAIL_RETRY_MAX_MS: "2000",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => {
    out += d;
  });
  child.stderr!.on("data", (d) => {
    out += d;
  });
  await waitFor(async () => out.includes("ready:") || child.exitCode !== null, { timeoutMs: 120_000, what: `host ${i} ready` });
  if (!out.includes("ready:")) throw new Error(`host ${i} did not start:\n${out.slice(-3000)}`);
  return { child, output: () => out };
}

/** haproxy on 127.0.0.1:`port`, HTTP, in front of both hosts' public ports, health-checked each second (down after 5 misses). */
function startFront(dir: string, port: number): ChildProcess {
  const cfg = path.join(dir, "haproxy-hosts.cfg");
  fs.writeFileSync(
    cfg,
    [
      "global",
      "  maxconn 1024",
      "defaults",
      "  mode http",
      "  timeout connect 1s",
      "  timeout client 60s",
      "  timeout server 30s",
      "  retries 3",
      "  option redispatch",
      // A request whose host died before answering is sent to the other: the Tracking API is
      // idempotent by messageId (docs/tracking-api.md), so a resend stores nothing twice.
      "  retry-on conn-failure empty-response response-timeout",
      "frontend eventrail",
      `  bind 127.0.0.1:${port}`,
      "  default_backend hosts",
      "backend hosts",
      "  balance roundrobin",
      // HTTP/1.1 with a Host: the edge answers a request without one 400 (docs/edge.md).
      "  option httpchk",
      "  http-check send meth GET uri /api/health ver HTTP/1.1 hdr Host eventrail.internal",
      "  timeout check 5s",
      "  default-server inter 1s fall 5 rise 2",
      ...HOSTS.map((i) => `  server h${i} ${far(i)}:3000 check`),
      "",
    ].join("\n"),
  );
  return spawn("haproxy", ["-db", "-f", cfg], { stdio: "ignore" });
}

/**
 * Most requests in any span at one receiver against a token bucket of `perSecond` (one second's
 * worth), widened by `jitterMs`: the bucket is taken when a worker picks deliveries up, and the
 * requests arrive after a send latency that varies by that much under load.
 */
export function worstSpan(at: number[], perSecond: number, jitterMs = 0, origin = 0): { worst: string; over: number } {
  const sorted = [...at].sort((a, b) => a - b);
  let worst = { ratio: 0, text: "none" };
  let over = 0;
  for (let i = 0; i < sorted.length; i++)
    for (let j = i; j < sorted.length; j++) {
      const n = j - i + 1;
      const allowed = perSecond * (1 + (sorted[j] - sorted[i] + jitterMs) / 1000) + 1;
      if (n / allowed > worst.ratio)
        worst = {
          ratio: n / allowed,
          text: `${n} in ${sorted[j] - sorted[i]} ms (allowed ${allowed.toFixed(1)}) at ${((sorted[i] - origin) / 1000).toFixed(1)} s from the kill`,
        };
      if (n > allowed) over++;
    }
  return { worst: worst.text, over };
}

export async function runHostsDrill(): Promise<HostsResult> {
  if (process.getuid?.() !== 0) throw new Error("the hosts drill needs root: it creates network namespaces");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-hosts-"));
  const pgDir = path.join(dir, "pg");
  fs.mkdirSync(pgDir, { mode: 0o700 });
  execFileSync("chown", ["-R", "postgres:postgres", dir]);
  const [pgPort, frontPort] = [await freePort(), await freePort()];
  const hosts = new Map<number, Host>();
  let front: ChildProcess | undefined;
  netUp();
  // The receivers, on this side of host 1's pair (host 2 reaches it through its default route).
  const receiver = await startDrillReceiver(undefined, { host: near(1) });
  // The ordered destination's receiver: messageIds in the order their first requests came.
  const arrivals: string[] = [];
  const ordered = await startDrillReceiver(undefined, { host: near(2) });
  const innerOrdered = ordered.behave;
  ordered.behave = (id) => {
    if (!ordered.receipts.has(id) && !arrivals.includes(id)) arrivals.push(id);
    return innerOrdered(id);
  };
  const limitedAt: number[] = [];
  const limited = await startDrillReceiver(undefined, { host: near(1) });
  const inner = limited.behave;
  limited.behave = (id) => {
    limitedAt.push(Date.now());
    return inner(id);
  };
  try {
    const [initdb, ...initArgs] = postgresAs("initdb", ["-D", pgDir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    execFileSync(initdb, initArgs, { stdio: "pipe" });
    fs.appendFileSync(path.join(pgDir, "pg_hba.conf"), "host all all 10.201.0.0/16 trust\n");
    await startPostgres(pgDir, pgPort, ["127.0.0.1", ...HOSTS.map(near)].join(","));
    const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${pgPort}/postgres` });
    await admin.connect();
    await admin.query("CREATE DATABASE eventrail");
    await admin.end();
    const localUrl = `postgresql://postgres@127.0.0.1:${pgPort}/eventrail`;
    const hostUrl = (i: number) => `postgresql://postgres@${near(i)}:${pgPort}/eventrail`;

    // One after the other: the first applies the migrations (the second would wait for its lock).
    for (const i of HOSTS) hosts.set(i, await startHost(i, hostUrl(i)));
    front = startFront(dir, frontPort);
    const startedAt = Date.now();
    const base = `http://127.0.0.1:${frontPort}`;
    await waitFor(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status === 200, { what: "haproxy" });
    console.log(`[drill] hosts: 2 hosts up (${HOSTS.map(far).join(", ")}), haproxy ${base}, Postgres :${pgPort}; sending ${EVENTS} events`);

    const call = async (p: string, token: string, body: unknown) => {
      const r = await fetch(`${base}${p}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (r.status >= 300) throw new Error(`${p}: ${r.status} ${(await r.text()).slice(0, 500)}`);
      return r.json() as Promise<{ id: string; writeKey: string; token: string }>;
    };
    const ws = await call("/api/workspaces", ADMIN_TOKEN, { name: "hosts" });
    const post = (p: string, body: unknown) => call(p, ws.token, body);
    const source = await post("/api/sources", { name: "hosts" });
    const everything = await post("/api/destinations", { name: "all", urls: [receiver.url], sourceIds: [source.id] });
    // Every other event (~50 a second), at most 20 a second across both hosts' workers (docs/webhooks.md#rate-limits).
    await post("/api/destinations", {
      name: "limited",
      urls: [limited.url],
      sourceIds: [source.id],
      filter: { types: ["track"], events: { mode: "include", names: ["Limited"] } },
      rateLimit: { perSecond: LIMIT_PER_SECOND, concurrency: null },
    });
    // Every event, each user's in the order they arrived, whichever host took them (docs/webhooks.md#ordering).
    const orderedDest = await post("/api/destinations", {
      name: "ordered",
      urls: [ordered.url],
      sourceIds: [source.id],
      ordering: "perUser",
    });

    // A real client: batches of up to 100, flushed every 100 ms, retried on 5xx and network errors.
    const analytics = new Analytics({ writeKey: source.writeKey, host: base, maxEventsInBatch: 100, flushInterval: 100, maxRetries: 10 });
    const acknowledged = new Set<string>();
    let failedAtClient = 0;
    const sending = (async () => {
      const pending: Promise<void>[] = [];
      for (let n = 0; n < EVENTS; n++) {
        const messageId = `hosts-${n}`;
        pending.push(
          new Promise<void>((resolve) =>
            analytics.track(
              { messageId, userId: `user-${n % 100}`, event: n % 2 === 0 ? "Limited" : "Drill", properties: { n } },
              (err) => {
                if (err) failedAtClient++;
                else acknowledged.add(messageId);
                resolve();
              },
            ),
          ),
        );
        // ~100 events a second, so that the kill lands mid-run.
        if (n % 10 === 9) await new Promise((r) => setTimeout(r, 100));
      }
      await Promise.all(pending);
      await analytics.closeAndFlush({ timeout: 60_000 });
    })();

    await waitFor(async () => receiver.receipts.size >= EVENTS / 3, { timeoutMs: 120_000, what: "a third delivered" });
    const killedAfter = receiver.receipts.size;
    const killed = killHost(2);
    hosts.delete(2);
    const killedAt = Date.now();
    console.log(`[drill] hosts: ${killedAfter} delivered; host 2 killed (SIGKILL of its ${killed} processes)`);
    await new Promise((r) => setTimeout(r, 10_000));
    hosts.set(2, await startHost(2, hostUrl(2)));
    const backAfterSeconds = (Date.now() - killedAt) / 1000;
    console.log(`[drill] hosts: host 2 back after ${backAfterSeconds.toFixed(1)} s`);
    await sending;

    const acked = [...acknowledged];
    const check = new pg.Client({ connectionString: localUrl });
    await check.connect();
    const stored = (
      await check.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE source_id = $1 AND message_id = ANY($2::text[])", [
        source.id,
        acked,
      ])
    ).rows[0].n;
    await waitFor(async () => acked.every((id) => receiver.receipts.has(id)) || false, {
      timeoutMs: 180_000,
      what: "every acknowledged event delivered",
    }).catch(() => {});
    const limitedIds = acked.filter((id) => Number(id.slice("hosts-".length)) % 2 === 0);
    await waitFor(async () => limitedIds.every((id) => limited.receipts.has(id)) || false, {
      timeoutMs: 120_000,
      what: "every limited event delivered",
    }).catch(() => {});
    await waitFor(async () => acked.every((id) => ordered.receipts.has(id)) || false, {
      timeoutMs: 180_000,
      what: "every ordered event delivered",
    }).catch(() => {});
    // Per user, the order the request log's deliveries arrived in (their time-ordered ids) against the
    // order their first requests reached the receiver.
    const expected = await check.query<{ user_id: string; ids: string[] }>(
      `SELECT m.user_id, array_agg(m.message_id ORDER BY d.id) AS ids FROM deliveries d JOIN messages m ON m.id = d.message_row_id
        WHERE d.destination_id = $1 GROUP BY m.user_id`,
      [orderedDest.id],
    );
    const position = new Map(arrivals.map((id, i) => [id, i]));
    let outOfOrder = 0;
    let orderedDelivered = 0;
    for (const { ids } of expected.rows) {
      const seen = ids.map((id) => position.get(id)).filter((p): p is number => p !== undefined);
      orderedDelivered += seen.length;
      for (let i = 1; i < seen.length; i++) if (seen[i] < seen[i - 1]) outOfOrder++;
    }
    const delivered = acked.filter((id) => receiver.receipts.has(id)).length;
    const dupIds = acked.filter((id) => (receiver.receipts.get(id) ?? 0) > 1);
    const duplicates = dupIds.reduce((n, id) => n + receiver.receipts.get(id)! - 1, 0);
    // Of the extra receipts, those the request log shows as attempts (a success logged for each).
    const logged = dupIds.length
      ? (
          await check.query<{ n: number }>(
            `SELECT coalesce(sum(greatest(0, least(s.successes, $3::int) - 1)), 0)::int AS n FROM (
               SELECT m.message_id, count(*) FILTER (WHERE a.outcome = 'success') AS successes
                 FROM messages m JOIN attempts a ON a.message_row_id = m.id
                WHERE m.source_id = $1 AND m.message_id = ANY($2::text[]) AND a.destination_id = $4
                GROUP BY m.message_id) s`,
            [source.id, dupIds, 1_000, everything.id],
          )
        ).rows[0].n
      : 0;
    // Cron queues: jobs created per minute, over the whole run and at least two ticks with both hosts up.
    const cronTicks = () =>
      check.query<{ name: string; minutes: number; most: number }>(
        `SELECT name, count(*)::int AS minutes, max(n)::int AS most FROM (
           SELECT name, date_trunc('minute', created_on) AS m, count(*) AS n FROM pgboss.job
            WHERE name IN ('endpoint-alerts', 'audience-schedule') AND created_on > $1 GROUP BY 1, 2) t GROUP BY name ORDER BY name`,
        [new Date(startedAt)],
      );
    await waitFor(async () => (await cronTicks()).rows.every((r) => r.minutes >= 3) || false, {
      timeoutMs: 200_000,
      intervalMs: 2_000,
      what: "three cron ticks",
    }).catch(() => {});
    const ticks = await cronTicks();
    const span = worstSpan(limitedAt, LIMIT_PER_SECOND, 0, killedAt);
    const jittered = worstSpan(limitedAt, LIMIT_PER_SECOND, JITTER_MS, killedAt);
    // The same, by the request log's start times (the workers' clocks, after their take): no network in between.
    const started = await check.query<{ at: Date }>(
      `SELECT a.started_at AS at FROM attempts a JOIN destinations d ON d.id = a.destination_id WHERE d.name = 'limited'`,
    );
    // 100 ms for the time between a worker's take and its request's start stamp under load.
    const byLog = worstSpan(
      started.rows.map((r) => r.at.getTime()),
      LIMIT_PER_SECOND,
      100,
      killedAt,
    );
    await check.end();
    return {
      acknowledged: acked.length,
      failedAtClient,
      stored,
      lost: acked.length - stored + (acked.length - delivered),
      delivered,
      duplicates,
      duplicatesLogged: logged,
      limited: {
        received: limitedAt.length,
        worstSpan: span.worst,
        overLimit: span.over,
        overWithJitter: jittered.over,
        byLog: `${byLog.worst}; spans over: ${byLog.over}`,
        overByLog: byLog.over,
      },
      ordering: { users: expected.rows.length, delivered: orderedDelivered, outOfOrder },
      cronTicks: ticks.rows.map((r) => ({ queue: r.name, minutes: r.minutes, most: r.most })),
      killedAfter,
      backAfterSeconds,
    };
  } finally {
    for (const i of HOSTS) if (hosts.has(i)) killHost(i);
    if (front && front.exitCode === null) front.kill("SIGKILL");
    await receiver.close();
    await limited.close();
    await ordered.close();
    try {
      const [cmd, ...args] = postgresAs("pg_ctl", ["-D", pgDir, "-m", "immediate", "stop"]);
      execFileSync(cmd, args, { stdio: "pipe" });
    } catch {}
    netDown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatHosts(r: HostsResult): string {
  return [
    "[drill] two hosts, one database:",
    `  acknowledged: ${r.acknowledged} (the client gave up on ${r.failedAtClient}); stored: ${r.stored}; delivered: ${r.delivered}; LOST: ${r.lost}`,
    `  host 2 killed after ${r.killedAfter} deliveries, back after ${r.backAfterSeconds.toFixed(1)} s`,
    `  duplicates delivered: ${r.duplicates}, of which logged as attempts: ${r.duplicatesLogged}`,
    `  rate limit ${LIMIT_PER_SECOND}/s across both hosts: ${r.limited.received} requests, worst span ${r.limited.worstSpan}; spans over the bucket: ${r.limited.overLimit}, over it with ${JITTER_MS} ms of send jitter: ${r.limited.overWithJitter}`,
    `  the same by the request log's start times (100 ms for take to start): worst ${r.limited.byLog}`,
    `  ordering per user across both hosts: ${r.ordering.delivered} events of ${r.ordering.users} users delivered, out of order: ${r.ordering.outOfOrder}`,
    ...r.cronTicks.map((t) => `  cron ${t.queue}: ${t.minutes} minutes, at most ${t.most} job(s) in one minute`),
    `RESULT hosts acknowledged=${r.acknowledged} lost=${r.lost} duplicates=${r.duplicates} logged=${r.duplicatesLogged} over_limit=${r.limited.overLimit} over_with_jitter=${r.limited.overWithJitter} over_by_log=${r.limited.overByLog} out_of_order=${r.ordering.outOfOrder} cron_most=${Math.max(0, ...r.cronTicks.map((t) => t.most))}`,
  ].join("\n");
}
