import type { Job, PgBoss } from "pg-boss";
import { processDeliveryBatch } from "../../lib/delivery/process";
import { drainLateRounds } from "../../lib/delivery/detach";
import { QUEUES } from "../../lib/platform/queue";
import { logger } from "../../lib/platform/logger";
import type { Handler } from "../handler";

/**
 * `deliver` jobs are taken several at a time (each carries up to 100 deliveries) and handled as
 * one batch: one load, concurrent POSTs, one recording statement. A full fetch makes pg-boss fetch
 * again at once (burst); LISTEN/NOTIFY wakes the worker when new jobs are inserted; and since a
 * NOTIFY fires at insert, not when a delayed retry job becomes due, the worker also sets itself a
 * timer for each second in which retries it scheduled fall due (the poll is only a backstop).
 */
const JOBS_PER_FETCH = 5;
const PARALLEL_BATCHES = 4;
const BACKSTOP_POLL_SECONDS = 10;

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

export const deliverHandler: Handler = {
  queue: "deliver",
  async start({ boss }) {
    const def = QUEUES.deliver;
    let workerId = "";
    workerId = await boss.work(
      def.name,
      {
        batchSize: JOBS_PER_FETCH,
        burstWhenBatchFull: true,
        localConcurrency: PARALLEL_BATCHES,
        pollingIntervalSeconds: 2,
        notifyPollingIntervalSeconds: BACKSTOP_POLL_SECONDS,
      },
      async (jobs: Job<unknown>[]) => {
        const ids: string[] = [];
        for (const job of jobs) {
          const parsed = def.schema.safeParse(job.data);
          if (parsed.success) ids.push(...parsed.data.deliveryIds);
          else logger().error({ queue: def.name, jobId: job.id }, "invalid job payload, dropping");
        }
        const onLateDue = (due: Date[]) => {
          for (const d of due) wakeAt(boss, workerId, d);
        };
        const { dueTimes, ...summary } = await processDeliveryBatch({ deliveryIds: ids, onLateDue }).catch((err: Error) => {
          // The sends may have happened; nothing was recorded, so pg-boss retries the jobs (at-least-once).
          logger().warn({ jobIds: jobs.map((j) => j.id), err: err.message }, "deliver batch not recorded; jobs will be retried");
          throw err;
        });
        for (const due of dueTimes) wakeAt(boss, workerId, due);
        logger().debug({ jobIds: jobs.map((j) => j.id), ...summary }, "deliver batch done");
      },
    );
  },
  async stop() {
    // Rounds that outlived their batch finish and are recorded before the dispatchers and the pool close.
    await drainLateRounds();
    for (const t of wakeTimers.values()) clearTimeout(t);
    wakeTimers.clear();
  },
};
