import { PgBoss } from "pg-boss";
import type { Queue } from "pg-boss";
import { z } from "zod";
import { databaseUrl } from "./env";

/**
 * Every queue in one place: its name, the zod schema of its payload and its options.
 * The web app and the worker create queues from this list; handlers live in worker/handlers/.
 */
export const QUEUES = {
  /** A batch of deliveries to attempt now (ingest, replay, audience syncs, deletions). */
  deliver: {
    name: "deliver",
    schema: z.object({ deliveryIds: z.array(z.string().uuid()).min(1) }),
    // heartbeatSeconds: a worker killed mid-batch stops heart-beating, so its jobs are retried within
    // seconds (heartbeat + the worker's monitor interval) instead of after expireInSeconds.
    options: { notify: true, retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 300, heartbeatSeconds: 10 },
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
  /** Periodic housekeeping: retention, sweeping stuck deliveries. */
  maintenance: {
    name: "maintenance",
    schema: z.object({ task: z.string() }),
    options: { retryLimit: 1, expireInSeconds: 900 },
  },
} as const satisfies Record<string, { name: string; schema: z.ZodType; options: Omit<Queue, "name"> }>;

export type QueueKey = keyof typeof QUEUES;
export type QueuePayload<K extends QueueKey> = z.infer<(typeof QUEUES)[K]["schema"]>;

const g = globalThis as unknown as { __eventrailBoss?: Promise<PgBoss> };

/** Workers supervise, schedule and listen; web processes only send (role "web"). */
export function createBoss(opts: { url?: string; role?: "worker" | "web" } = {}): PgBoss {
  const worker = (opts.role ?? "worker") === "worker";
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

export async function createQueues(boss: PgBoss): Promise<void> {
  for (const q of Object.values(QUEUES)) await boss.createQueue(q.name, q.options);
}

/** The process-wide pg-boss instance for enqueueing (started once, never per request). */
export function boss(): Promise<PgBoss> {
  g.__eventrailBoss ??= (async () => {
    const b = createBoss({ role: "web" });
    b.on("error", () => {});
    await b.start();
    await createQueues(b);
    return b;
  })().catch((err) => {
    g.__eventrailBoss = undefined;
    throw err;
  });
  return g.__eventrailBoss;
}

/** Stops the process-wide instance if one was started (tests, benchmarks, shutdown); a later boss() starts afresh. */
export async function closeBoss(): Promise<void> {
  const started = g.__eventrailBoss;
  g.__eventrailBoss = undefined;
  if (started) await (await started).stop({ graceful: false, close: true }).catch(() => {});
}

/** Validates the payload against the queue's schema, then sends. */
export async function enqueue<K extends QueueKey>(
  key: K,
  data: QueuePayload<K>,
  options: Parameters<PgBoss["send"]>[2] = {},
): Promise<string | null> {
  const q = QUEUES[key];
  const payload = q.schema.parse(data);
  return (await boss()).send(q.name, payload as object, options);
}
