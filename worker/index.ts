import { startWorkerQueue } from "../lib/platform/queue";
import { env } from "../lib/platform/env";
import { logger } from "../lib/platform/logger";
import { atShutdown, closeRuntime } from "../lib/platform/runtime";
import { startMetricsPush } from "../lib/metrics/push";
import { handlers } from "./registry";

process.env.EVENTRAIL_PROCESS ??= "worker";

/**
 * Worker lifecycle: validate env → boss.on('error') → start → create queues → work. One SIGTERM
 * owner; the shutdown order itself is the runtime's (lib/platform/runtime.ts).
 */
async function main() {
  env();
  const log = logger();
  const boss = await startWorkerQueue((err) => log.error({ err: err.message }, "pg-boss error"));
  const ctx = { boss };
  for (const h of handlers) await h.start(ctx);
  // Stop taking work first: fetch no more jobs, finish the ones in flight, then let each handler
  // finish what outlived its jobs (late delivery rounds still record through the pool).
  atShutdown("worker jobs", "intake", async () => {
    await boss.stop({ graceful: true, timeout: 20_000, close: false });
    for (const h of handlers) await h.stop?.();
  });
  // Also the worker's heartbeat (the worker count in /metrics).
  startMetricsPush("worker");
  log.info({ queues: handlers.map((h) => h.queue) }, "worker started");
  process.send?.({ type: "ready" });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "worker stopping: finishing in-flight jobs");
    const force = setTimeout(() => {
      log.error("graceful stop timed out, exiting");
      process.exit(1);
    }, 30_000);
    force.unref();
    const { failed } = await closeRuntime();
    if (failed.length > 0) {
      log.error({ failed }, "error while stopping");
      process.exit(1);
    }
    log.info("worker stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  logger().fatal({ err: (err as Error).message }, "worker failed to start");
  process.exit(1);
});
