import { createIngestServer } from "../lib/ingest/server";
import { startMetricsPush } from "../lib/metrics/push";
import { env } from "../lib/platform/env";
import { logger } from "../lib/platform/logger";
import { closeRuntime } from "../lib/platform/runtime";

process.env.EVENTRAIL_PROCESS ??= "ingest";

/**
 * The ingest process (docs/architecture.md#processes): the Tracking API on PORT, everything else
 * passed to the web app at EVENTRAIL_WEB_URL. Stateless: run as many as the load needs.
 * SIGTERM: stop accepting, finish the requests in flight (each commits or answers an error), then
 * close the pool.
 */
async function main() {
  const { PORT, HOST, EVENTRAIL_WEB_URL, EVENTRAIL_WEB_CONCURRENCY } = env();
  const log = logger();
  const server = createIngestServer({ webUrl: EVENTRAIL_WEB_URL ?? null, webConcurrency: EVENTRAIL_WEB_CONCURRENCY });
  // Longer than common load balancers' idle timeout (60 s), so that they close idle connections first.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(PORT, HOST, resolve);
  });
  startMetricsPush("ingest");
  log.info({ port: PORT, host: HOST, web: EVENTRAIL_WEB_URL ?? null }, "ingest started");
  process.send?.({ type: "ready" });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "ingest stopping: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const { failed } = await closeRuntime();
    process.exit(failed.length > 0 ? 1 : 0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  logger().fatal({ err: (err as Error).message }, "ingest failed to start");
  process.exit(1);
});
