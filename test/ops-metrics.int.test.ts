// GET /metrics reports the whole installation from any web process, and a failing endpoint shows as
// unhealthy both in metrics and through the API (GET /api/destinations/:id/health).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  freePort,
  startApp,
  startIngest,
  startStack,
  startWorker,
  waitFor,
  type ApiClient,
  type Proc,
  type Stack,
} from "./harness/stack";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { parseMetrics, sumOf } from "./harness/metrics-text";
import { postTracking } from "./harness/tracking";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const ENV = { EVENTRAIL_RETRY_BASE_MS: "200", EVENTRAIL_METRICS_TOKEN: METRICS_TOKEN };

let stack: Stack;
let api: ApiClient;
let other: ApiClient;
let rx: Receiver;
let secondApp: (Proc & { url: string }) | undefined;
const extraWorkers: Proc[] = [];
let writeKey: string;
let sourceId: string;
let healthy: string;
let dead: string;
let deadUrl: string;

async function scrape(baseUrl: string, token = METRICS_TOKEN) {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return parseMetrics(await res.text());
}

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: ENV });
  api = await stack.newWorkspace("metrics");
  other = await stack.newWorkspace("other");
  rx = await startReceiver(() => ({ status: 200 }));
  deadUrl = `http://127.0.0.1:${await freePort()}/dead?token=do-not-expose`;
  const source = await api.post("/api/sources", { name: "Web" });
  writeKey = source.writeKey;
  sourceId = source.id;
  healthy = (await api.post("/api/destinations", { name: "Healthy", urls: [`${rx.url}/ok`], sourceIds: [sourceId] })).id;
  dead = (await api.post("/api/destinations", { name: "Dead", urls: [deadUrl], sourceIds: [sourceId] })).id;
});
afterAll(async () => {
  await Promise.all(extraWorkers.map((w) => w.stop()));
  await secondApp?.stop();
  await rx?.close();
  await stack?.stop();
});

describe("GET /metrics", () => {
  it("refuses scrapes without the metrics (or admin) token", async () => {
    expect((await fetch(`${stack.app.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${stack.app.url}/metrics`, { headers: { authorization: `Bearer ${api.token}` } })).status).toBe(401);
    expect((await fetch(`${stack.app.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  });

  it("counts calls, deliveries and attempts, and a second web process reports the same totals", async () => {
    const batch = [
      ...Array.from({ length: 8 }, (_, i) => ({ type: "track", event: "Signed Up", userId: `u${i}`, messageId: `t${i}` })),
      ...Array.from({ length: 3 }, (_, i) => ({ type: "identify", userId: `u${i}`, messageId: `i${i}` })),
      { type: "track", userId: "u-no-event" },
    ];
    const r = await postTracking(stack.app.url, "/v1/batch", { batch }, { writeKey, headers: { "x-request-id": "client-req-0001" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toBe("client-req-0001");
    expect(r.body.rejected).toHaveLength(1);
    // A retry of the same messages: duplicates, acknowledged.
    expect((await postTracking(stack.app.url, "/v1/track", batch[0], { writeKey })).status).toBe(200);
    expect((await postTracking(stack.app.url, "/v1/track", batch[0], { writeKey: "wrong-key" })).status).toBe(401);

    const m = await waitFor(
      async () => {
        const s = await scrape(stack.app.url);
        return sumOf(s, "eventrail_deliveries_total", { destination: healthy, state: "delivered" }) === 11 &&
          sumOf(s, "eventrail_tracking_duplicates_total") === 1
          ? s
          : null;
      },
      { timeoutMs: 60_000, what: "metrics to show the deliveries" },
    );
    expect(sumOf(m, "eventrail_tracking_messages_total", { source: sourceId, type: "track", result: "accepted" })).toBe(9);
    expect(sumOf(m, "eventrail_tracking_messages_total", { source: sourceId, type: "identify", result: "accepted" })).toBe(3);
    expect(sumOf(m, "eventrail_tracking_messages_total", { source: sourceId, type: "track", result: "rejected" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_requests_total", { endpoint: "batch", status: "200" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_requests_total", { endpoint: "track", status: "401" })).toBe(1);
    expect(sumOf(m, "eventrail_delivery_attempts_total", { destination: healthy, outcome: "success" })).toBe(11);
    expect(sumOf(m, "eventrail_delivery_attempt_duration_seconds_count", { destination: healthy })).toBe(11);
    expect(sumOf(m, "eventrail_delivery_attempt_duration_seconds_bucket", { destination: healthy, le: "+Inf" })).toBe(11);
    expect(sumOf(m, "eventrail_delivery_attempts_total", { destination: dead, outcome: "retry" })).toBeGreaterThanOrEqual(11);
    expect(sumOf(m, "eventrail_workers")).toBe(1);
    for (const state of ["queued", "deferred", "active"])
      expect(m.some((s) => s.name === "eventrail_queue_jobs" && s.labels.queue === "deliver" && s.labels.state === state)).toBe(true);
    expect(m.some((s) => s.name === "eventrail_queue_oldest_waiting_seconds" && s.labels.queue === "deliver")).toBe(true);
    expect(sumOf(m, "eventrail_deliveries_pending", { destination: dead })).toBe(11);
    expect(sumOf(m, "eventrail_deliveries_oldest_pending_seconds", { destination: dead })).toBeGreaterThan(0);

    // Another web process against the same database: same totals (nothing is per process).
    secondApp = await startApp(stack.databaseUrl, ENV);
    const m2 = await scrape(secondApp.url);
    expect(sumOf(m2, "eventrail_tracking_messages_total", { result: "accepted" })).toBe(12);
    expect(sumOf(m2, "eventrail_delivery_attempts_total", { destination: healthy, outcome: "success" })).toBe(11);
  });

  it("shows the dead URL unhealthy and the healthy one healthy, without the URL's query string", async () => {
    const m = await waitFor(
      async () => {
        const s = await scrape(stack.app.url);
        return sumOf(s, "eventrail_endpoint_state", { destination: dead, state: "unhealthy" }) === 1 ? s : null;
      },
      { what: "the dead URL to be unhealthy" },
    );
    const deadLabel = deadUrl.split("?")[0];
    expect(
      m.find((s) => s.name === "eventrail_endpoint_state" && s.labels.destination === dead && s.labels.state === "unhealthy")!.labels.url,
    ).toBe(deadLabel);
    expect(sumOf(m, "eventrail_endpoint_state", { destination: healthy, state: "healthy" })).toBe(1);
    expect(sumOf(m, "eventrail_endpoint_success_ratio", { destination: healthy })).toBe(1);
    expect(sumOf(m, "eventrail_endpoint_consecutive_failures", { destination: dead })).toBeGreaterThanOrEqual(5);
    const text = await (await fetch(`${stack.app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(text).not.toContain("do-not-expose");
  });

  it("counts the calls the ingest process answers: accepted, rejected by reason, and their latency", async () => {
    const ingest = await startIngest(stack.databaseUrl, { webUrl: stack.app.url, env: ENV });
    extraWorkers.push(ingest);
    const source = await api.post("/api/sources", { name: "Through ingest" });
    const batch = [
      { type: "track", event: "Viewed", userId: "u1", messageId: "ing-1" },
      { type: "track", event: "Viewed", userId: "u1", messageId: "ing-2" },
      { type: "track", userId: "u-no-event", messageId: "ing-3" },
    ];
    expect((await postTracking(ingest.url, "/v1/batch", { batch }, { writeKey: source.writeKey })).status).toBe(200);
    expect((await postTracking(ingest.url, "/v1/identify", { userId: "u1" }, { writeKey: "wrong-key" })).status).toBe(401);
    const m = await waitFor(
      async () => {
        const s = await scrape(stack.app.url);
        return sumOf(s, "eventrail_tracking_messages_total", { source: source.id }) === 3 ? s : null;
      },
      { timeoutMs: 30_000, what: "the ingest process's counts on /metrics" },
    );
    expect(sumOf(m, "eventrail_tracking_messages_total", { source: source.id, type: "track", result: "accepted" })).toBe(2);
    expect(sumOf(m, "eventrail_tracking_rejections_total", { source: source.id, reason: "missing_field" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_requests_total", { endpoint: "identify", status: "401" })).toBe(1);
    // Only the ingest process has answered /v1/identify in this file.
    expect(sumOf(m, "eventrail_tracking_request_duration_seconds_count", { endpoint: "identify" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_request_duration_seconds_bucket", { endpoint: "identify", le: "+Inf" })).toBe(1);
    expect(sumOf(m, "eventrail_tracking_request_duration_seconds_sum", { endpoint: "identify" })).toBeGreaterThan(0);
  });

  it("keeps counting across worker restarts and counts every live worker", async () => {
    const before = sumOf(await scrape(stack.app.url), "eventrail_delivery_attempts_total");
    await stack.workers[0].stop();
    // A worker that stopped gracefully leaves the count at once.
    expect(sumOf(await scrape(stack.app.url), "eventrail_workers")).toBe(0);
    extraWorkers.push(await startWorker(stack.databaseUrl, ENV), await startWorker(stack.databaseUrl, ENV));
    const m = await waitFor(
      async () => {
        const s = await scrape(stack.app.url);
        return sumOf(s, "eventrail_workers") === 2 && sumOf(s, "eventrail_delivery_attempts_total") > before ? s : null;
      },
      { what: "two live workers and more attempts" },
    );
    // The stopped worker's counts are still in the totals.
    expect(sumOf(m, "eventrail_delivery_attempts_total", { destination: healthy, outcome: "success" })).toBe(11);
  });
});

describe("GET /api/destinations/:id/health", () => {
  it("reports each URL's state, success rate, failures in a row and last error", async () => {
    const d = await waitFor(async () => {
      const h = await api.get(`/api/destinations/${dead}/health`);
      return h.urls[0].state === "unhealthy" ? h : null;
    });
    expect(d).toMatchObject({ destinationId: dead, urls: [{ url: deadUrl, state: "unhealthy", successRate: 0, lastSuccessAt: null }] });
    expect(d.urls[0].consecutiveFailures).toBeGreaterThanOrEqual(5);
    expect(d.urls[0].lastError).toMatch(/^connection: /);
    const h = await api.get(`/api/destinations/${healthy}/health`);
    expect(h.urls).toEqual([
      expect.objectContaining({ url: `${rx.url}/ok`, state: "healthy", successRate: 1, consecutiveFailures: 0, lastError: null }),
    ]);
  });

  it("is the workspace's own: another workspace gets 404", async () => {
    expect((await other.request("GET", `/api/destinations/${dead}/health`)).status).toBe(404);
    expect((await api.request("GET", `/api/destinations/not-a-uuid/health`)).status).toBe(404);
  });
});
