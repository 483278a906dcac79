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

/**
 * A lane's job as its handler parsed it: its id, how many runs of it started before this one, whether
 * it is a late rounds' safety job, its deliveries.
 */
export type LaneJob = { id: string; retryCount: number; late: boolean; deliveryIds: string[] };

/**
 * Runs one fetch of a lane's jobs (their delivery ids) as one batch; throws, so pg-boss retries them,
 * when it was not recorded. A job whose earlier run may have sent rounds it never recorded logs them
 * first (resumedDeliveries).
 */
export async function deliverLaneBatch(boss: PgBoss, queue: string, jobs: readonly LaneJob[]): Promise<void> {
  const jobIds = jobs.map((j) => j.id);
  const resumedSince = (await resumedDeliveries(boss, queue, jobs)) ?? undefined;
  const deliveryIds = jobs.flatMap((j) => j.deliveryIds);
  const { dueTimes, ...summary } = await processDeliveryBatch({ deliveryIds, onLateDue: wakeRetryLane, resumedSince }).catch(
    (err: Error) => {
      // The sends may have happened; nothing was recorded, so pg-boss retries the jobs (at-least-once).
      logger().warn({ jobIds, err: err.message }, "deliver batch not recorded; jobs will be retried");
      throw err;
    },
  );
  wakeRetryLane(dueTimes);
  logger().debug({ queue, jobIds, ...summary }, "deliver batch done");
}

/**
 * The deliveries whose round an earlier run may have sent and never recorded, by when their job was
 * created (interrupted.ts logInterruptedSingles): those of a job pg-boss runs again (`retryCount` > 0:
 * an earlier run started and never completed — its worker killed, its heartbeat lapsed, its batch not
 * recorded), and of a late rounds' safety job, which runs only when its rounds were not all recorded.
 * pg-boss is asked for those jobs' creation times only; null when there are none.
 */
async function resumedDeliveries(boss: PgBoss, queue: string, jobs: readonly LaneJob[]): Promise<Map<string, Date> | null> {
  let resumed: Map<string, Date> | null = null;
  for (const job of jobs) {
    if (job.retryCount === 0 && !job.late) continue;
    const meta = await boss.getJobById(queue, job.id);
    if (!meta) continue;
    resumed ??= new Map();
    for (const id of job.deliveryIds) resumed.set(id, new Date(meta.createdOn));
  }
  return resumed;
}

/** After the lanes stopped taking jobs: rounds that outlived their batch finish and are recorded, before the dispatchers and the pool close. */
export async function stopLanes(): Promise<void> {
  await drainLateRounds();
  for (const t of wakeTimers.values()) clearTimeout(t);
  wakeTimers.clear();
}
