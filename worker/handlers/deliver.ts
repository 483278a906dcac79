import type { Job } from "pg-boss";
import { processDeliveryBatch } from "../../lib/delivery/process";
import { closeDispatchers } from "../../lib/webhooks/dispatchers";
import { QUEUES } from "../../lib/queue";
import { log } from "../../lib/log";
import type { Handler } from "../handler";

/**
 * `deliver` jobs are taken several at a time (each carries up to 100 deliveries) and handled as
 * one batch: one load, concurrent POSTs, one recording statement. A full fetch makes pg-boss fetch
 * again at once (burst); otherwise LISTEN/NOTIFY wakes the worker when new jobs arrive.
 */
const JOBS_PER_FETCH = 5;
const PARALLEL_BATCHES = 4;

export const deliverHandler: Handler = {
  queue: "deliver",
  async start({ boss }) {
    const def = QUEUES.deliver;
    await boss.work(
      def.name,
      { batchSize: JOBS_PER_FETCH, burstWhenBatchFull: true, localConcurrency: PARALLEL_BATCHES, pollingIntervalSeconds: 2 },
      async (jobs: Job<unknown>[]) => {
        const ids: string[] = [];
        for (const job of jobs) {
          const parsed = def.schema.safeParse(job.data);
          if (parsed.success) ids.push(...parsed.data.deliveryIds);
          else log().error({ queue: def.name, jobId: job.id }, "invalid job payload, dropping");
        }
        const summary = await processDeliveryBatch({ boss, deliveryIds: ids });
        log().debug({ jobIds: jobs.map((j) => j.id), ...summary }, "deliver batch done");
      },
    );
  },
  stop: closeDispatchers,
};
