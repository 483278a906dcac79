import { createBoss, createQueues } from "../lib/queue";
import { env } from "../lib/env";
import { log } from "../lib/log";
import { closeDb } from "../lib/db";
import { flushMetrics, startMetricsPush } from "../lib/metrics/push";
import { handlers } from "./registry";

process.env.EVENTRAIL_PROCESS ??= "worker";

/** Worker lifecycle: validate env → boss.on('error') → start → create queues → work. One SIGTERM owner. */
async function main() {
  env();
  const logger = log();
  const boss = createBoss();
  boss.on("error", (err) => logger.error({ err: err.message }, "pg-boss error"));
  await boss.start();
  await createQueues(boss);
  const ctx = { boss };
  for (const h of handlers) await h.start(ctx);
  // Also the worker's heartbeat (the worker count in /metrics).
  startMetricsPush("worker");
  logger.info({ queues: handlers.map((h) => h.queue) }, "worker started");
  process.send?.({ type: "ready" });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "worker stopping: finishing in-flight jobs");
    const force = setTimeout(() => {
      logger.error("graceful stop timed out, exiting");
      process.exit(1);
    }, 30_000);
    force.unref();
    try {
      // The pool stays open until the handlers have stopped: late delivery rounds still record through it.
      await boss.stop({ graceful: true, timeout: 20_000, close: false });
      for (const h of handlers) await h.stop?.();
      await boss.stop({ close: true });
      await flushMetrics();
      await closeDb();
      logger.info("worker stopped");
      process.exit(0);
    } catch (err) {
      logger.error({ err: (err as Error).message }, "error while stopping");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  log().fatal({ err: (err as Error).message }, "worker failed to start");
  process.exit(1);
});
