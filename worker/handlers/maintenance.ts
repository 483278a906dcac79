import { env } from "../../lib/platform/env";
import { logger } from "../../lib/platform/logger";
import { scheduleJobs } from "../../lib/platform/queue";
import { pruneExpiredData } from "../../lib/maintenance/retention";
import { clearEndedSecrets } from "../../lib/maintenance/ended-secrets";
import { retireSilentInstances } from "../../lib/maintenance/retire-instances";
import { jobHandler, type Handler } from "../handler";

/**
 * Housekeeping on the `maintenance` queue, scheduled with pg-boss cron (one job per tick however many
 * workers run): retention every 10 minutes, so each run has little to delete.
 */
export const RETENTION_CRON = "*/10 * * * *";

const run = jobHandler("maintenance", { batchSize: 1 }, async (data, job) => {
  if (data.task !== "retention") {
    logger().warn({ jobId: job.id, task: data.task }, "unknown maintenance task, ignored");
    return;
  }
  const e = env();
  const result = await pruneExpiredData({
    days: {
      messages: e.RETENTION_MESSAGES_DAYS,
      attempts: e.RETENTION_ATTEMPTS_DAYS,
      captures: e.RETENTION_CAPTURES_DAYS,
      audit: e.RETENTION_AUDIT_DAYS,
    },
  });
  const retired = await retireSilentInstances();
  const endedSecrets = await clearEndedSecrets();
  logger().info({ jobId: job.id, ...result, retiredInstances: retired, endedSecrets }, "retention run done");
});

export const maintenanceHandler: Handler = {
  queue: "maintenance",
  async start(ctx) {
    await scheduleJobs("maintenance", RETENTION_CRON, { task: "retention" });
    await run.start(ctx);
  },
};
