/**
 * Next calls register() once when a server process starts: the web process starts its metrics push
 * here (lib/metrics/push.ts), once, instead of on its first counted call. The worker starts its own
 * in worker/index.ts. Node runtime only; never while `next build` renders pages.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  // Before the first request: client addresses for throttling come from the socket (lib/api/client-address.ts).
  const { stampPeerAddresses } = await import("./lib/api/client-address");
  stampPeerAddresses();
  const { startMetricsPush } = await import("./lib/metrics/push");
  startMetricsPush("web");
}
