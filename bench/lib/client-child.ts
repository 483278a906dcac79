/**
 * One benchmark run in a process of its own, so peak memory is the client's alone:
 * `client-child.ts <eventrail|segment> <endpoint> <calls> <batchSize>`. Both clients get the same
 * calls and the same driver loop; prints one JSON line of figures.
 */
import v8 from "node:v8";

const [which, endpoint, callsArg, batchArg] = process.argv.slice(2);
const calls = Number(callsArg);
const batchSize = Number(batchArg);
const WRITE_KEY = "bench-write-key-0123456789";
/** The driver yields to the event loop this often, as a server handling requests would. */
const YIELD_EVERY = 1000;

type Client = { track(m: { userId: string; event: string; properties: Record<string, unknown> }): unknown; close(): Promise<unknown> };

async function makeClient(): Promise<Client> {
  if (which === "eventrail") {
    const { Analytics } = await import("../../lib/sdk/analytics");
    // Segment's queue is unbounded; ours is raised to the call count so that neither drops calls.
    const a = new Analytics(WRITE_KEY, { endpoint, flushAt: batchSize, flushAfter: 5000, maxQueueSize: calls });
    a.on("failure", (e) => console.error(`failure: ${e.error.message}`));
    return { track: (m) => a.track(m), close: () => a.close() };
  }
  const { Analytics } = await import("@segment/analytics-node");
  const a = new Analytics({ writeKey: WRITE_KEY, host: endpoint, path: "/v1/batch", flushAt: batchSize, flushInterval: 5000 });
  a.on("error", (e) => console.error(`failure: ${String((e as { reason?: unknown }).reason ?? e)}`));
  return { track: (m) => a.track(m), close: () => a.closeAndFlush({ timeout: 600_000 }) };
}

const client = await makeClient();
let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  peakHeap = Math.max(peakHeap, v8.getHeapStatistics().used_heap_size);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
};
sample();
const baselineRss = peakRss;
const sampler = setInterval(sample, 20);

const started = performance.now();
for (let i = 0; i < calls; i++) {
  client.track({
    userId: `user-${i % 1000}`,
    event: "Order Completed",
    properties: { orderId: `order-${i}`, total: 19.99, currency: "EUR", items: 3, coupon: null },
  });
  if (i % YIELD_EVERY === YIELD_EVERY - 1) {
    sample();
    await new Promise((r) => setImmediate(r));
  }
}
sample();
await client.close();
const elapsedMs = performance.now() - started;
sample();
clearInterval(sampler);
console.log(
  JSON.stringify({
    which,
    calls,
    elapsedMs,
    callsPerSecond: (calls / elapsedMs) * 1000,
    baselineRssMb: baselineRss / 1e6,
    peakRssMb: Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1e6,
    peakHeapMb: peakHeap / 1e6,
  }),
);
