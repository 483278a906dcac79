import type { Job, PgBoss, WorkOptions } from "pg-boss";
import { QUEUES, type QueueKey, type QueuePayload } from "../lib/platform/queue";
import { logger } from "../lib/platform/logger";

export type WorkerContext = { boss: PgBoss };

/** A queue handler. `start` registers its workers; `stop` (optional) releases its own resources. */
export type Handler = {
  queue: QueueKey;
  start(ctx: WorkerContext): Promise<void>;
  stop?(): Promise<void>;
};

/**
 * The common case: each job's payload is validated with its queue's schema and handed to `fn`.
 * A job whose payload is invalid fails at once (retrying cannot fix it); `fn` throws to retry.
 */
export function jobHandler<K extends QueueKey>(
  queue: K,
  work: WorkOptions,
  fn: (data: QueuePayload<K>, job: Job<unknown>, ctx: WorkerContext) => Promise<void>,
): Handler {
  const def = QUEUES[queue];
  return {
    queue,
    async start(ctx) {
      await ctx.boss.work(def.name, work, async (jobs: Job<unknown>[]) => {
        await Promise.all(
          jobs.map(async (job) => {
            const parsed = def.schema.safeParse(job.data);
            if (!parsed.success) {
              logger().error({ queue: def.name, jobId: job.id }, "invalid job payload, dropping");
              return;
            }
            await fn(parsed.data as QueuePayload<K>, job, ctx);
          }),
        );
      });
    },
  };
}
