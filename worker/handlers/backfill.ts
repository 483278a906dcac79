import { runBackfill } from "../../lib/backfills/run";
import { sendJob } from "../../lib/platform/queue";
import { logger } from "../../lib/platform/logger";
import { jobHandler } from "../handler";

/**
 * Backfill runners (lib/backfills/run.ts), one job per backfill at a time (the queue's `stately`
 * policy, keyed by the backfill's id). A job runs the backfill for a while and, when it is not over,
 * queues the next one; a worker killed mid-run has its job retried when its heartbeat lapses.
 */
export const backfillHandler = jobHandler("backfill", { batchSize: 1, localConcurrency: 2 }, async (data, job) => {
  const outcome = await runBackfill({ backfillId: data.backfillId, signal: job.signal });
  if (outcome === "again") await sendJob("backfill", data, { singletonKey: data.backfillId });
  else logger().info({ jobId: job.id, backfillId: data.backfillId }, "backfill ended");
});
