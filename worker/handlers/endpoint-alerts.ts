import { evaluateEndpointAlerts } from "../../lib/alerts/evaluate";
import { logger } from "../../lib/platform/logger";
import { scheduleJobs } from "../../lib/platform/queue";
import { noticeNewViolationKinds } from "../../lib/tracking-plans/violation-notices";
import { jobHandler, type Handler } from "../handler";

/**
 * The endpoint alerts' tick (docs/alerts.md#when): pg-boss runs the cron entry once a minute however
 * many workers schedule it, and each tick judges every enabled destination URL at the current time,
 * then tells the tracking plans' new kinds of violation.
 */
export const ENDPOINT_ALERTS_CRON = "* * * * *";

const tick = jobHandler("endpointAlerts", { batchSize: 1 }, async (_data, job) => {
  const { evaluated, events } = await evaluateEndpointAlerts();
  if (events.length > 0) logger().info({ jobId: job.id, evaluated, changed: events.length }, "endpoint alerts evaluated");
  // The same tick tells new kinds of tracking-plan violation (docs/tracking-plans.md#notices).
  await noticeNewViolationKinds();
});

export const endpointAlertsHandler: Handler = {
  queue: "endpointAlerts",
  async start(ctx) {
    await scheduleJobs("endpointAlerts", ENDPOINT_ALERTS_CRON);
    await tick.start(ctx);
  },
};
