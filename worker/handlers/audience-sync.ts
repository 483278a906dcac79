import { scheduleJobs } from "../../lib/platform/queue";
import { logger } from "../../lib/platform/logger";
import { runAudienceSync } from "../../lib/audiences/sync";
import { queueDueAudienceSyncs } from "../../lib/audiences/syncs";
import { jobHandler, type Handler } from "../handler";

/**
 * Audience syncs, one job each. Two at a time per worker: a sync holds one connection for its
 * duration (two while it sends a full membership in lanes, docs/audiences.md#how-a-sync-runs), and
 * the per-audience advisory lock (not the queue) keeps one audience's syncs apart, across any
 * number of workers.
 */
export const audienceSyncHandler = jobHandler("audienceSync", { batchSize: 1, localConcurrency: 2 }, async (data, job) => {
  const r = await runAudienceSync({ audienceId: data.audienceId, syncId: data.syncId, trigger: data.trigger });
  if (r.status === "skipped")
    logger().info({ jobId: job.id, audienceId: data.audienceId }, "audience sync skipped: another one holds the audience");
});

/**
 * The schedule: one cron entry for the whole product (every minute) whose tick queues the due
 * audiences. pg-boss runs a cron entry once per minute however many workers schedule it, and a
 * tick that overlaps another is harmless (requestAudienceSync dedupes under the audience's lock).
 */
const tick = jobHandler("audienceSchedule", { batchSize: 1 }, async (_data, job) => {
  const queued = await queueDueAudienceSyncs();
  if (queued.length > 0) logger().info({ jobId: job.id, audiences: queued.length }, "scheduled audience syncs queued");
});

export const audienceScheduleHandler: Handler = {
  queue: "audienceSchedule",
  async start(ctx) {
    await scheduleJobs("audienceSchedule", "* * * * *");
    await tick.start(ctx);
  },
};
