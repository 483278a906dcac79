import { releaseHolds } from "../../lib/delivery/holds";
import { logger } from "../../lib/platform/logger";
import { scheduleJobs } from "../../lib/platform/queue";
import { jobHandler, type Handler } from "../handler";

/**
 * The hold limit's tick (docs/webhooks.md#hold-limit): pg-boss runs the cron entry once a minute
 * however many workers schedule it; each tick lets go the held deliveries past their destination's
 * `maxHoldMinutes`, and those nothing holds any more.
 */
export const ORDER_HOLDS_CRON = "* * * * *";

const tick = jobHandler("orderHolds", { batchSize: 1 }, async (_data, job) => {
  const released = await releaseHolds();
  if (released.pastLimit + released.unheld > 0) logger().info({ jobId: job.id, ...released }, "held deliveries released");
});

export const orderHoldsHandler: Handler = {
  queue: "orderHolds",
  async start(ctx) {
    await scheduleJobs("orderHolds", ORDER_HOLDS_CRON);
    await tick.start(ctx);
  },
};
