import type { Job } from "pg-boss";
import { deliverLaneBatch, type LaneJob, laneWorkOptions, retryLaneStarted, stopLanes } from "../../lib/delivery/lanes";
import type { Lane } from "../../lib/delivery/policy";
import { QUEUES } from "../../lib/platform/queue";
import { logger } from "../../lib/platform/logger";
import type { Handler } from "../handler";

/**
 * A delivery lane's handler (lib/delivery/policy.ts LANES): parses a fetch of jobs and hands their
 * delivery ids to the engine as one batch (lib/delivery/lanes.ts).
 */
function laneHandler(lane: Lane): Handler {
  const def = QUEUES[lane];
  return {
    queue: lane,
    async start({ boss }) {
      const workerId = await boss.work(def.name, laneWorkOptions(lane), async (jobs: Job<unknown>[]) => {
        const parsed: LaneJob[] = [];
        for (const job of jobs) {
          const data = def.schema.safeParse(job.data);
          if (data.success)
            parsed.push({ id: job.id, retryCount: job.retryCount, late: data.data.late === true, deliveryIds: data.data.deliveryIds });
          else logger().error({ queue: def.name, jobId: job.id }, "invalid job payload, dropping");
        }
        await deliverLaneBatch(boss, def.name, parsed);
      });
      if (lane === "deliverRetry") retryLaneStarted(boss, workerId);
    },
    stop: stopLanes,
  };
}

/** Deliveries due again: retries, deferrals, late rounds' safety jobs. Started before the fresh lane, whose batches wake it. */
export const deliverRetryHandler = laneHandler("deliverRetry");
/** Fresh deliveries: ingest, replays, audiences, deletions. */
export const deliverHandler = laneHandler("deliver");
/** Backfills' deliveries (docs/routing.md#backfill): one slot, behind live traffic. */
export const deliverBackfillHandler = laneHandler("deliverBackfill");
