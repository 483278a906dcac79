import type { Job, PgBoss } from "pg-boss";
import { processDeliveryBatch } from "../../lib/delivery/process";
import { drainLateRounds } from "../../lib/delivery/detach";
import { QUEUES } from "../../lib/platform/queue";
import { logger } from "../../lib/platform/logger";
import type { Handler } from "../handler";

/**
 * `deliver` jobs are taken several at a time (each carries up to 100 deliveries) and handled as
 * one batch: one load, concurrent POSTs, one recording statement. A full fetch makes pg-boss fetch
 * again at once (burst).
 *
 * Two lanes, each with worker slots of its own (docs/webhooks.md#endpoint-isolation): fresh
 * deliveries (`deliver`: ingest, replays, audiences, deletions; LISTEN/NOTIFY wakes the worker when
 * they are inserted) and deliveries due again (`deliver-retry`: retries, deferrals, safety jobs),
 * so a dead endpoint's retries, due again for hours, never hold the slots a healthy destination's
 * new deliveries wait for (docs/decisions/0010-endpoint-isolation.md). A retry job's NOTIFY would fire at insert, not when it falls due, so the
 * worker sets itself a timer for each second in which retries it scheduled fall due (the retry lane
 * also polls, as a backstop for another worker's retries).
 */
const FRESH = { jobsPerFetch: 5, parallelBatches: 4 };
// Fewer slots: retries must not take the CPU that fresh deliveries need; each still carries up to 5 × 100 deliveries.
const RETRY = { jobsPerFetch: 5, parallelBatches: 2 };
const BACKSTOP_POLL_SECONDS = 10;
const RETRY_POLL_SECONDS = 2;

const wakeTimers = new Map<number, NodeJS.Timeout>();

function wakeAt(boss: PgBoss, workerId: string, due: Date) {
  const key = due.getTime();
  if (wakeTimers.has(key)) return;
  const timer = setTimeout(
    () => {
      wakeTimers.delete(key);
      boss.notifyWorker(workerId);
    },
    Math.max(0, key - Date.now()) + 20,
  );
  timer.unref();
  wakeTimers.set(key, timer);
}

/** Registers one lane's workers; every batch's retries are woken on the retry lane (`wake`). */
function workLane(
  boss: PgBoss,
  lane: "deliver" | "deliverRetry",
  slots: { jobsPerFetch: number; parallelBatches: number },
  polling: { pollingIntervalSeconds: number; notifyPollingIntervalSeconds?: number },
  wake: (due: Date[]) => void,
): Promise<string> {
  const def = QUEUES[lane];
  return boss.work(
    def.name,
    { batchSize: slots.jobsPerFetch, burstWhenBatchFull: true, localConcurrency: slots.parallelBatches, ...polling },
    async (jobs: Job<unknown>[]) => {
      const ids: string[] = [];
      for (const job of jobs) {
        const parsed = def.schema.safeParse(job.data);
        if (parsed.success) ids.push(...parsed.data.deliveryIds);
        else logger().error({ queue: def.name, jobId: job.id }, "invalid job payload, dropping");
      }
      const { dueTimes, ...summary } = await processDeliveryBatch({ deliveryIds: ids, onLateDue: wake }).catch((err: Error) => {
        // The sends may have happened; nothing was recorded, so pg-boss retries the jobs (at-least-once).
        logger().warn({ jobIds: jobs.map((j) => j.id), err: err.message }, "deliver batch not recorded; jobs will be retried");
        throw err;
      });
      wake(dueTimes);
      logger().debug({ queue: def.name, jobIds: jobs.map((j) => j.id), ...summary }, "deliver batch done");
    },
  );
}

export const deliverHandler: Handler = {
  queue: "deliver",
  async start({ boss }) {
    let retryWorkerId = "";
    const wake = (due: Date[]) => {
      for (const d of due) wakeAt(boss, retryWorkerId, d);
    };
    retryWorkerId = await workLane(boss, "deliverRetry", RETRY, { pollingIntervalSeconds: RETRY_POLL_SECONDS }, wake);
    await workLane(boss, "deliver", FRESH, { pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: BACKSTOP_POLL_SECONDS }, wake);
  },
  async stop() {
    // Rounds that outlived their batch finish and are recorded before the dispatchers and the pool close.
    await drainLateRounds();
    for (const t of wakeTimers.values()) clearTimeout(t);
    wakeTimers.clear();
  },
};
