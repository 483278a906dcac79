import { createEdge, LISTEN_BACKLOG } from "../lib/ingest/server";
import { startMetricsPush } from "../lib/metrics/push";
import { env } from "../lib/platform/env";
import { logger } from "../lib/platform/logger";
import { closeRuntime } from "../lib/platform/runtime";

process.env.EVENTRAIL_PROCESS ??= "ingest";

/**
 * The ingest process, the public edge (docs/edge.md): the Tracking API on PORT, everything else
 * passed to the web app at EVENTRAIL_WEB_URL. Stateless: run as many as the load needs.
 * SIGTERM: stop accepting, finish the requests in flight (each commits or answers an error), then
 * close the pool.
 */
async function main() {
  const e = env();
  const log = logger();
  const total = e.EVENTRAIL_MAX_CONNECTIONS;
  const { app } = await createEdge({
    webUrl: e.EVENTRAIL_WEB_URL ?? null,
    webConcurrency: e.EVENTRAIL_WEB_CONCURRENCY,
    trustedProxies: e.EVENTRAIL_TRUSTED_PROXIES,
    publicUrl: e.EVENTRAIL_PUBLIC_URL ?? null,
    // The last tenth of the connections is kept for /v1: the web app gets no more than 90 % busy.
    limits: { perAddress: e.EVENTRAIL_MAX_CONNECTIONS_PER_ADDRESS, total, webRoom: Math.floor(total * 0.9) },
  });
  await app.listen({ port: e.PORT, host: e.HOST, backlog: LISTEN_BACKLOG });
  startMetricsPush("ingest");
  log.info({ port: e.PORT, host: e.HOST, web: e.EVENTRAIL_WEB_URL ?? null }, "ingest started");
  process.send?.({ type: "ready" });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "ingest stopping: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    // Stops listening and closes idle keep-alive connections; requests in flight finish first.
    await app.close();
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
