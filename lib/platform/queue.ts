import "server-only";
import type pg from "pg";
import type { PgBoss, Queue } from "pg-boss";
import { installQueueWakeups } from "./queue-wakeups";
import { installQueueCommits } from "./queue-commits";
import { getQueues as getQueuesPlan, insertJobs as insertJobsPlan, notifyChannelSql } from "pg-boss/dist/plans.js";
import { z } from "zod";
import { asyncCommitPool, pool } from "./db";
import { databaseUrl } from "./env";
import { existing, forget, processWide, type Closing } from "./runtime";

/** Both delivery lanes carry the same jobs with the same retry policy; only `notify` differs. */
const DELIVERY_BATCH = {
  schema: z.object({
    deliveryIds: z.array(z.string().uuid()).min(1),
    // a late rounds' safety job (lib/delivery/process.ts): a delivery it finds untouched since was never recorded
    late: z.literal(true).optional(),
  }),
  // heartbeatSeconds: a worker killed mid-batch stops heart-beating, so its jobs are retried within
  // seconds (heartbeat + the worker's monitor interval) instead of after expireInSeconds.
  options: { retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 300, heartbeatSeconds: 10 },
};

/**
 * Every queue in one place: its name, the zod schema of its payload and its options.
 * The web app and the worker create queues from this list; handlers live in worker/handlers/.
 */
export const QUEUES = {
  /** A batch of deliveries to attempt now (ingest, replay, audience syncs, deletions): the fresh lane. */
  deliver: { name: "deliver", ...DELIVERY_BATCH, options: { ...DELIVERY_BATCH.options, notify: true } },
  /**
   * The retry lane: deliveries attempted (or deferred) before, due again later — retries, deferrals,
   * late rounds' safety jobs. A queue (and table) of its own with its own worker slots, so a dead
   * endpoint's retries never take a slot or a place in the fetch order that a fresh delivery needs
   * (docs/webhooks.md#endpoint-isolation). Its jobs are due later, not now: no NOTIFY on insert; the
   * worker that schedules them wakes itself when they fall due (lib/delivery/lanes.ts).
   */
  deliverRetry: { name: "deliver-retry", ...DELIVERY_BATCH, options: { ...DELIVERY_BATCH.options, notify: false } },
  /**
   * The backfill lane (docs/routing.md#backfill): a backfill's deliveries, a page at a time. A queue
   * of its own with one worker slot (lib/delivery/policy.ts LANES), so live deliveries never wait
   * behind a backfill's in the `deliver` queue's fetch order. No NOTIFY: its worker polls every
   * second when idle and fetches back to back while there are jobs (burst).
   */
  deliverBackfill: { name: "deliver-backfill", ...DELIVERY_BATCH, options: { ...DELIVERY_BATCH.options, notify: false } },
  /**
   * A backfill's runner: queues its pages as its deliveries settle, for a while, then hands over to
   * its next job (lib/backfills/run.ts). `stately` with the backfill's id as the singleton key: at
   * most one job of a backfill queued and one running, however often it is re-sent.
   */
  backfill: {
    name: "backfill",
    schema: z.object({ backfillId: z.string().uuid() }),
    // A worker killed mid-run stops its heartbeat: the job is retried within a minute and resumes from the committed cursor.
    options: { policy: "stately", notify: true, retryLimit: 20, retryDelay: 5, expireInSeconds: 300, heartbeatSeconds: 10 },
  },
  /** Compute an audience's membership and send the changes. */
  audienceSync: {
    name: "audience-sync",
    schema: z.object({ audienceId: z.string().uuid(), syncId: z.string().uuid().optional(), trigger: z.string().default("manual") }),
    // A worker that dies mid-sync stops its heartbeat: the job is retried within a minute, and
    // the retry resumes from what the dead one committed (not 30 minutes later at expiry).
    options: { notify: true, retryLimit: 3, retryDelay: 30, expireInSeconds: 1800, heartbeatSeconds: 60 },
  },
  /** The audience schedule's tick (pg-boss cron, every minute): queues the syncs that are due. */
  audienceSchedule: {
    name: "audience-schedule",
    // pg-boss cron jobs carry no data (null).
    schema: z.object({}).passthrough().nullable(),
    options: { retryLimit: 0, expireInSeconds: 120 },
  },
  /** Erase users and send delete notifications. */
  deletion: {
    name: "deletion",
    schema: z.object({ deletionRequestId: z.string().uuid() }),
    options: { notify: true, retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 1800 },
  },
  /** The endpoint alerts' tick (pg-boss cron, every minute): judge each destination URL (docs/alerts.md#when). */
  endpointAlerts: {
    name: "endpoint-alerts",
    // pg-boss cron jobs carry no data (null).
    schema: z.object({}).passthrough().nullable(),
    options: { retryLimit: 0, expireInSeconds: 120 },
  },
  /** The hold limit's tick (pg-boss cron, every minute): releases held deliveries past it (docs/webhooks.md#hold-limit). */
  orderHolds: {
    name: "order-holds",
    // pg-boss cron jobs carry no data (null).
    schema: z.object({}).passthrough().nullable(),
    options: { retryLimit: 0, expireInSeconds: 120 },
  },
  /** Periodic housekeeping: retention, sweeping stuck deliveries. */
  maintenance: {
    name: "maintenance",
    schema: z.object({ task: z.string() }),
    options: { retryLimit: 1, expireInSeconds: 900 },
  },
} as const satisfies Record<string, { name: string; schema: z.ZodType; options: Omit<Queue, "name"> }>;

export type QueueKey = keyof typeof QUEUES;
export type QueuePayload<K extends QueueKey> = z.infer<(typeof QUEUES)[K]["schema"]>;

/**
 * Workers supervise, schedule and listen; web processes only send (role "web"). pg-boss's client is
 * loaded here, on first use: a process that only inserts jobs (the ingest server) never loads it.
 */
async function createBoss(opts: { url?: string; role?: "worker" | "web" } = {}): Promise<PgBoss> {
  const worker = (opts.role ?? "worker") === "worker";
  await installQueueWakeups();
  await installQueueCommits();
  const { PgBoss } = await import("pg-boss");
  return new PgBoss({
    connectionString: opts.url ?? databaseUrl(),
    schema: "pgboss",
    application_name: worker ? "eventrail-worker" : "eventrail-web",
    useListenNotify: worker,
    supervise: worker,
    schedule: worker,
    max: worker ? 6 : 3,
    // How soon jobs of a crashed worker (heartbeat lapsed, expired) are noticed and retried.
    ...(worker ? { superviseIntervalSeconds: 15, monitorIntervalSeconds: 15 } : {}),
  });
}

async function createQueues(boss: PgBoss): Promise<void> {
  for (const q of Object.values(QUEUES)) await boss.createQueue(q.name, q.options);
}

const BOSS = "pg-boss";
/** Closed after the metrics and dispatchers, before the pool (runtime.ts); a worker's intake stopped earlier. */
const BOSS_CLOSING: Closing<Promise<PgBoss>> = {
  stage: "queue",
  close: async (started) => {
    const b = await started.catch(() => null);
    await b?.stop({ graceful: false, close: true });
  },
};

function startBoss(role: "worker" | "web", onError: (err: Error) => void): Promise<PgBoss> {
  const started = (async () => {
    const b = await createBoss({ role });
    b.on("error", onError);
    await b.start();
    await createQueues(b);
    return b;
  })();
  // A failed start is forgotten, so the next use tries again.
  started.catch(() => existing(BOSS) === started && forget(BOSS));
  return started;
}

/**
 * This process's pg-boss (started once, never per request): in a worker the one startWorkerQueue()
 * started; anywhere else a send-only instance, started on first use.
 */
export function boss(): Promise<PgBoss> {
  return processWide(BOSS, () => startBoss("web", () => {}), BOSS_CLOSING);
}

/** A worker's start: this process's pg-boss as a worker (supervises, schedules, listens). Before any boss(). */
export function startWorkerQueue(onError: (err: Error) => void): Promise<PgBoss> {
  if (existing(BOSS)) throw new Error("this process's pg-boss was started before the worker's");
  return processWide(BOSS, () => startBoss("worker", onError), BOSS_CLOSING);
}

/*
 * Producing jobs: the only way jobs are written. Every payload is parsed with its queue's schema
 * first, so a job its handler would drop as invalid is never written; the check costs about what
 * pg-boss's own JSON.stringify of the payload does (docs/decisions/0023-job-payloads-parsed.md).
 */

/** Runs pg-boss statements on the caller's client, so jobs commit or roll back with its transaction. */
const onClient = (client: pg.PoolClient) => ({
  executeSql: (text: string, values?: unknown[]) => client.query(text, values as unknown[]),
});

const parsed = <K extends QueueKey>(key: K, data: QueuePayload<K>): object => QUEUES[key].schema.parse(data) as object;

/**
 * Sends one job, in the caller's transaction when `client` is given. `startAfter`: seconds from now
 * or a time. Returns its id (null when pg-boss skipped it).
 */
export async function sendJob<K extends QueueKey>(
  key: K,
  data: QueuePayload<K>,
  opts: { client?: pg.PoolClient; startAfter?: number | Date; singletonKey?: string } = {},
): Promise<string | null> {
  const payload = parsed(key, data);
  return (await boss()).send(QUEUES[key].name, payload, {
    ...(opts.startAfter !== undefined ? { startAfter: opts.startAfter } : {}),
    ...(opts.singletonKey !== undefined ? { singletonKey: opts.singletonKey } : {}),
    ...(opts.client ? { db: onClient(opts.client) } : {}),
  });
}

/** Many jobs of one queue in one statement (pg-boss insert), in the caller's transaction. */
export async function insertJobs<K extends QueueKey>(
  key: K,
  jobs: { data: QueuePayload<K>; startAfter?: Date }[],
  opts: { client: pg.PoolClient },
): Promise<void> {
  if (jobs.length === 0) return;
  const rows = jobs.map((j) => ({ data: parsed(key, j.data), ...(j.startAfter ? { startAfter: j.startAfter } : {}) }));
  await (await boss()).insert(QUEUES[key].name, rows, { db: onClient(opts.client) });
}

/** Deletes a job (one that is no longer needed) in the caller's transaction. */
export async function deleteJob(key: QueueKey, id: string, opts: { client: pg.PoolClient }): Promise<void> {
  await (await boss()).deleteJob(QUEUES[key].name, id, { db: onClient(opts.client) });
}

/** A pg-boss cron schedule for a queue (one job per tick however many workers schedule it). */
export async function scheduleJobs<K extends QueueKey>(key: K, cron: string, data?: QueuePayload<K>): Promise<void> {
  const q = QUEUES[key];
  await (await boss()).schedule(q.name, cron, data === undefined ? undefined : parsed(key, data));
}

/**
 * A queue's job table and whether it notifies: fixed once the queue exists, so read once per process,
 * with pg-boss's own statement through the pool. The ingest server needs no more of pg-boss than
 * this and its insert (jobInsertCte): it never starts an instance, nor loads pg-boss's client, unless
 * the queue does not exist yet, which boss() then creates (docs/operations.md#footprint).
 */
const queueTables = new Map<string, Promise<{ table: string; notify: boolean }>>();
function queueTable(name: string): Promise<{ table: string; notify: boolean }> {
  let found = queueTables.get(name);
  if (!found) {
    found = (async () => {
      const { rows } = await pool()
        .query<{ table: string; notify: boolean | null }>(getQueuesPlan("pgboss", [name]))
        .catch(() => ({ rows: [] }));
      const queue = rows[0] ?? (await (await boss()).getQueue(name));
      if (!queue) throw new Error(`queue ${name} does not exist`);
      return { table: queue.table, notify: queue.notify === true };
    })();
    found.catch(() => queueTables.delete(name));
    queueTables.set(name, found);
  }
  return found;
}

/**
 * The INSERT that pg-boss itself uses for `key`'s jobs (its queue's table and options, as
 * insertJobs above writes them), for embedding as a data-modifying CTE in a larger statement:
 * ingest commits messages, deliveries and their jobs in one statement (docs/architecture.md#ingest-statement).
 * `jobsJson` is an SQL expression giving the jobs as JSON text, `[{"data": …}, …]`, in the shape
 * the queue's schema describes (it is built in SQL, so the caller answers for it; NULL = no jobs).
 * The workers are not woken by it: call wakeWorkers after the commit.
 */
export async function jobInsertCte(key: QueueKey, jobsJson: string): Promise<string> {
  const name = QUEUES[key].name;
  const queue = await queueTable(name);
  const sql = insertJobsPlan("pgboss", { table: queue.table, name, returnId: true, notify: false });
  const placeholder = "$1::text::json";
  if (sql.split(placeholder).length !== 2) throw new Error("pg-boss's insert statement changed: its jobs parameter was not found");
  return sql.replace(placeholder, () => `(${jobsJson})::text::json`);
}

const waking = new Map<string, { inFlight: boolean; again: boolean }>();

/**
 * Wakes the workers listening on `key`'s queue (pg-boss's channel) after jobs were committed by
 * jobInsertCte, coalesced: one NOTIFY in flight per queue and process, and one more after it if
 * jobs were committed meanwhile. Not in the jobs' transaction, on purpose: a transaction that
 * notifies holds a database-wide lock from its pre-commit to the end of its commit, WAL flush
 * included, so notifying ingest transactions commit one at a time (bench:ingest: sessions waiting
 * on Lock:object; docs/architecture.md#ingest-statement). A lost wake-up costs latency, not jobs:
 * workers also poll.
 */
export function wakeWorkers(key: QueueKey): void {
  const name = QUEUES[key].name;
  const s = waking.get(name) ?? { inFlight: false, again: false };
  waking.set(name, s);
  if (s.inFlight) {
    s.again = true;
    return;
  }
  const send = (): void => {
    s.inFlight = true;
    s.again = false;
    void queueTable(name)
      // Its own transaction, committed without waiting for the WAL flush: a NOTIFY takes a transaction
      // id, so each wake-up was a flushing commit, and nothing of it is lost with the flush.
      .then((q) => (q.notify ? asyncCommitPool().query(`SELECT pg_notify(${notifyChannelSql("pgboss")}, $1)`, [name]) : null))
      .catch(() => {})
      .then(() => {
        s.inFlight = false;
        if (s.again) send();
      });
  };
  send();
}
