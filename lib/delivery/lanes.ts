import "server-only";
import type { PgBoss, WorkOptions } from "pg-boss";
import { logger } from "../platform/logger";
import { drainLateRounds } from "./detach";
import { LANES, type Lane } from "./policy";
import { processDeliveryBatch } from "./process";

/**
 * The delivery lanes' workers (policy.ts LANES): how a lane takes its jobs, and the wake-ups of the
 * retry lane. `deliver` jobs are taken several at a time (each carries up to 100 deliveries) and
 * handled as one batch: one load, concurrent POSTs, one recording statement. A full fetch makes
 * pg-boss fetch again at once (burst).
 */

/** pg-boss's work options for a lane: its slots and polling. */
export function laneWorkOptions(lane: Lane): WorkOptions {
  const l = LANES[lane];
  return { batchSize: l.jobsPerFetch, burstWhenBatchFull: true, localConcurrency: l.parallelBatches, ...l.polling };
}

/** The retry lane's worker in this process, woken when the retries its batches scheduled fall due. */
let retryWorker: { boss: PgBoss; workerId: string } | null = null;
const wakeTimers = new Map<number, NodeJS.Timeout>();

/** Registers the retry lane's worker (its id from boss.work), so that wakeRetryLane can wake it. */
export function retryLaneStarted(boss: PgBoss, workerId: string): void {
  retryWorker = { boss, workerId };
}

/** Sets one timer per second in which retries fall due: their job's NOTIFY would fire at insert, not then. */
function wakeRetryLane(due: Date[]): void {
  for (const d of due) {
    const key = d.getTime();
    if (wakeTimers.has(key)) continue;
    const timer = setTimeout(
      () => {
        wakeTimers.delete(key);
        if (retryWorker) retryWorker.boss.notifyWorker(retryWorker.workerId);
      },
      Math.max(0, key - Date.now()) + 20,
    );
    timer.unref();
    wakeTimers.set(key, timer);
  }
}

/** Runs one fetch of a lane's jobs (their delivery ids) as one batch; throws, so pg-boss retries them, when it was not recorded. */
export async function deliverLaneBatch(deliveryIds: string[], log: { queue: string; jobIds: string[] }): Promise<void> {
  const { dueTimes, ...summary } = await processDeliveryBatch({ deliveryIds, onLateDue: wakeRetryLane }).catch((err: Error) => {
    // The sends may have happened; nothing was recorded, so pg-boss retries the jobs (at-least-once).
    logger().warn({ jobIds: log.jobIds, err: err.message }, "deliver batch not recorded; jobs will be retried");
    throw err;
  });
  wakeRetryLane(dueTimes);
  logger().debug({ ...log, ...summary }, "deliver batch done");
}

/** After the lanes stopped taking jobs: rounds that outlived their batch finish and are recorded, before the dispatchers and the pool close. */
export async function stopLanes(): Promise<void> {
  await drainLateRounds();
  for (const t of wakeTimers.values()) clearTimeout(t);
  wakeTimers.clear();
}
