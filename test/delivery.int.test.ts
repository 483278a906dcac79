// The Webhooks delivery engine end to end: real worker, real pg-boss, real receivers on 127.0.0.1.
import crypto from "node:crypto";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, startSelfSignedReceiver, type Receiver } from "./harness/delivery/receiver";

let ctx: DeliveryContext;
const receivers: Receiver[] = [];
const receiver = async (...a: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...a);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  ctx = await startDeliveryContext();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await ctx?.close();
});

/** True when a job for this delivery waits in either lane (new or due again): something will retry it. */
async function hasQueuedJob(deliveryId: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: ctx.stack.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT 1 FROM pgboss.job WHERE name IN ('deliver', 'deliver-retry') AND state IN ('created', 'retry') AND data->'deliveryIds' ? $1`,
      [deliveryId],
    );
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

describe("the request", () => {
  it("sends every payload shape (docs/webhooks.md#payloads) byte for byte, signed the seed's way and the Standard Webhooks way, with the static headers", async () => {
    const rx = await receiver();
    const dest = await ctx.destination({
      urls: [`${rx.url}/hook`],
      headers: [
        { name: "X-Team", value: "growth" },
        { name: "Authorization", value: "Bearer abcdefghijklmnopqrstuvwxyz" },
      ],
      sharedSecret: "s3cr3t-✓",
      standardWebhooks: true,
    });
    // Generated when signing is switched on; write-only, so it is revealed with its own call.
    const standardSecret = (await ctx.api.post(`/api/destinations/${dest.id}/reveal`, { secret: "standardSecret" })).value as string;
    expect(standardSecret).toMatch(/^whsec_/);
    const ts = "2026-11-21T15:05:50.000Z";
    const sentAt = "2026-11-21T15:05:50.250Z";
    const ctxObj = {
      ip: "203.0.113.9",
      device: { model: "Pixel 8", type: "android" },
      os: { name: "Android", version: "15" },
      app: { build: "7", name: "Acme", version: "1.2" },
    };
    // biome-ignore lint/correctness/noPrecisionLoss: on purpose: the receiver must get the digits JSON.stringify writes
    const props = { name: "Zoë 🚀 東京", price: 19.99, ratio: 0.1 + 0.2, big: 12345678901234567890, tiny: -1e-7, list: [1, "ü", null] };
    const messages = [
      {
        type: "page",
        messageId: "p-1",
        userId: "u1",
        anonymousId: "a1",
        name: "Pricing",
        properties: { path: "/pricing", referrer: "", title: "Pricing", url: "https://acme.example/pricing" },
        timestamp: ts,
        sentAt,
      },
      { type: "screen", messageId: "s-1", userId: "u1", name: "Home", timestamp: ts, context: ctxObj },
      { type: "identify", messageId: "i-1", userId: "u1", traits: { email: "zoë@example.com", plan: "pro" }, timestamp: ts },
      { type: "track", messageId: "t-1", userId: "u1", event: "Order Completed", properties: props, timestamp: ts, sentAt },
      { type: "alias", messageId: "al-1", userId: "u1", previousId: "a1", timestamp: ts },
      { type: "group", messageId: "g-1", userId: "u1", groupId: "acme", traits: { employees: 420 }, timestamp: ts },
      { type: "delete", messageId: "d-1", userId: "u1", timestamp: ts },
    ];
    await ctx.send(dest.id, messages);
    await waitFor(async () => rx.requests.length >= 7, { what: "7 deliveries" });

    const byId = new Map(rx.requests.map((r) => [JSON.parse(r.body).messageId ?? JSON.parse(r.body).type, r]));
    const receivedAt = JSON.parse(byId.get("p-1")!.body).receivedAt;
    expect(receivedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const expectBody = (key: string, expected: object) => expect(byId.get(key)!.body).toBe(JSON.stringify(expected));
    expectBody("p-1", {
      version: 1,
      type: "page",
      userId: "u1",
      name: "Pricing",
      properties: messages[0].properties,
      timestamp: ts,
      context: {},
      messageId: "p-1",
      anonymousId: "a1",
      receivedAt,
      sentAt,
    });
    expectBody("s-1", {
      version: 1,
      type: "screen",
      userId: "u1",
      name: "Home",
      timestamp: ts,
      context: ctxObj,
      messageId: "s-1",
      receivedAt,
    });
    expectBody("i-1", {
      version: 1,
      type: "identify",
      userId: "u1",
      traits: { email: "zoë@example.com", plan: "pro" },
      timestamp: ts,
      context: {},
      messageId: "i-1",
      receivedAt,
    });
    expectBody("t-1", {
      version: 1,
      type: "track",
      userId: "u1",
      event: "Order Completed",
      properties: props,
      timestamp: ts,
      context: {},
      messageId: "t-1",
      receivedAt,
      sentAt,
    });
    expectBody("al-1", {
      version: 1,
      type: "alias",
      "Previous ID": "a1",
      "User ID": "u1",
      timestamp: ts,
      context: {},
      messageId: "al-1",
      receivedAt,
    });
    expectBody("g-1", {
      version: 1,
      type: "group",
      groupId: "acme",
      userId: "u1",
      traits: { employees: 420 },
      timestamp: ts,
      context: {},
      messageId: "g-1",
      receivedAt,
    });
    expect(byId.get("d-1")!.body).toBe(JSON.stringify({ type: "delete", userId: "u1", timestamp: ts, messageId: "d-1" }));

    const wh = new Webhook(standardSecret);
    for (const r of rx.requests) {
      expect(r.method).toBe("POST");
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toBe("Eventrail.io/1.0");
      expect(r.headers["x-team"]).toBe("growth");
      expect(r.headers.authorization).toBe("Bearer abcdefghijklmnopqrstuvwxyz");
      // The seed's receiver: HMAC-SHA1 over JSON.stringify(JSON.parse(body)).
      const digest = crypto
        .createHmac("sha1", "s3cr3t-✓")
        .update(JSON.stringify(JSON.parse(r.body)))
        .digest("hex");
      expect(r.headers["x-signature"]).toBe(digest);
      expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    }
    // The attempt log masks every custom header value (write-only), never the digest. An attempt is
    // recorded once its answer is in, a moment after the receiver saw the request: wait for all 7.
    await waitFor(async () => (await ctx.api.get(`/api/attempts?destinationId=${dest.id}`)).attempts.length >= 7, {
      what: "7 attempts in the log",
    });
    const { attempts } = await ctx.api.get(`/api/attempts?destinationId=${dest.id}&type=track`);
    const detail = await ctx.api.get(`/api/attempts/${attempts[0].id}`);
    // The log leads with the event name of a track call (issue 15, item 5); other types have none.
    expect(attempts[0].event).toBe(JSON.parse(byId.get("t-1")!.body).event);
    expect(detail.event).toBe(attempts[0].event);
    const identifies = await ctx.api.get(`/api/attempts?destinationId=${dest.id}&type=identify`);
    expect(identifies.attempts[0].event).toBeNull();
    expect(detail.requestHeaders.Authorization).toBe("••••wxyz");
    expect(detail.requestHeaders["X-Team"]).toBe("••••");
    expect(detail.requestHeaders["x-signature"]).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.stringify(detail)).not.toContain("s3cr3t");
    expect(detail.requestBody).toBe(byId.get("t-1")!.body);
  });
});

describe("outcomes", () => {
  it("503 twice then 200: retried with backoff, then delivered", async () => {
    const rx = await receiver((_r, i) => (i < 2 ? { status: 503, body: "busy" } : { status: 200, body: "thanks" }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 3, lastStatus: 200 });
    expect(detail.attempts.map((a: any) => [a.attemptNumber, a.responseStatus, a.outcome])).toEqual([
      [1, 503, "retry"],
      [2, 503, "retry"],
      [3, 200, "success"],
    ]);
    expect(detail.attempts[0].nextRetryAt).not.toBeNull();
    expect(detail.attempts[0].responseBody).toBe("busy");
    expect(rx.requests).toHaveLength(3);
  });

  it("429 with Retry-After waits at least that long", async () => {
    const rx = await receiver((_r, i) => (i === 0 ? { status: 429, headers: { "Retry-After": "3" } } : { status: 200 }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0].state).toBe("delivered");
    expect(detail.attempts[0]).toMatchObject({ responseStatus: 429, outcome: "retry" });
    expect(rx.requests[1].at - rx.requests[0].at).toBeGreaterThanOrEqual(2_900);
  });

  it.each([
    [400, /HTTP 400/],
    [404, /HTTP 404/],
    [302, /redirects are not followed/],
  ])("%i is failed at once, not retried", async (status, reason) => {
    const rx = await receiver(() => ({
      status,
      headers: (status === 302 ? { Location: "http://127.0.0.1:1/elsewhere" } : {}) as Record<string, string>,
    }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "identify", userId: "u", traits: {} }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0]).toMatchObject({ state: "failed", attemptCount: 1, lastStatus: status, nextAttemptAt: null });
    expect(detail.deliveries[0].lastError).toMatch(reason);
    expect(detail.attempts).toHaveLength(1);
    expect(detail.attempts[0].outcome).toBe("failed");
    expect(await hasQueuedJob(detail.deliveries[0].id)).toBe(false);
    expect(rx.requests).toHaveLength(1);
  });

  it("a receiver that hangs past 5 s: timeout logged, retried", async () => {
    const rx = await receiver((_r, i) => (i === 0 ? "hang" : { status: 200 }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "Slow" }]);
    const detail = await ctx.settled(rowId, { timeoutMs: 60_000 });
    expect(detail.deliveries[0].state).toBe("delivered");
    expect(detail.attempts[0]).toMatchObject({ errorKind: "timeout", outcome: "retry", responseStatus: null });
    expect(detail.attempts[0].durationMs).toBeGreaterThanOrEqual(4_900);
    expect(detail.attempts[0].errorText).toMatch(/5 s/);
    expect(detail.attempts[1].outcome).toBe("success");
  });

  it("a receiver that answers headers at once, then trickles its body for 9 s: a timeout at the 5 s whole-exchange deadline", async () => {
    // The per-read body timeout never fires here (a byte every 300 ms); only the deadline on the
    // whole exchange (docs/webhooks.md#outcomes) ends it.
    const rx = await receiver((_r, i) => (i === 0 ? { status: 200, trickle: { bytes: 30, everyMs: 300 } } : { status: 200 }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "Trickle" }]);
    const detail = await ctx.settled(rowId, { timeoutMs: 60_000 });
    expect(detail.attempts[0]).toMatchObject({ errorKind: "timeout", outcome: "retry", responseStatus: null });
    expect(detail.attempts[0].errorText).toMatch(/5 s/);
    expect(detail.attempts[1].outcome).toBe("success");
  });

  it("keeps the first 64 KB of a larger response body in the attempt log", async () => {
    const body = "a".repeat(64 * 1024) + "b".repeat(36 * 1024);
    const rx = await receiver(() => ({ status: 200, body }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "Big Answer" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.attempts[0].outcome).toBe("success");
    expect(detail.attempts[0].responseBody).toBe(body.slice(0, 64 * 1024));
  });

  it("connection refused is retried; disabling the destination ends it failed with a reason", async () => {
    const port = await freePort();
    const dest = await ctx.destination({ urls: [`http://127.0.0.1:${port}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const twoAttempts = await waitFor(
      async () => {
        const d = await ctx.api.get(`/api/messages/${rowId}`);
        return d.attempts.length >= 2 && d;
      },
      { what: "two attempts" },
    );
    expect(twoAttempts.attempts[0]).toMatchObject({ errorKind: "connection", outcome: "retry" });
    expect(twoAttempts.attempts[0].errorText).toMatch(/ECONNREFUSED/);
    await ctx.api.patch(`/api/destinations/${dest.id}`, { enabled: false });
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0]).toMatchObject({ state: "failed", lastError: "destination is disabled" });
  });

  it("an HTTPS endpoint with a self-signed certificate: error recorded, no request sent, not retried", async () => {
    const rx = await startSelfSignedReceiver();
    receivers.push(rx);
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0]).toMatchObject({ state: "failed", attemptCount: 1 });
    expect(detail.attempts[0]).toMatchObject({ errorKind: "tls", outcome: "failed", responseStatus: null });
    expect(detail.attempts[0].errorText).toMatch(/self.signed|SELF_SIGNED/i);
    expect(detail.attempts[0].errorText).toMatch(/no request was sent/);
    expect(rx.requests).toHaveLength(0);
    expect(rx.tlsErrors).toBeGreaterThanOrEqual(1);
    expect(await hasQueuedJob(detail.deliveries[0].id)).toBe(false);
  });

  it("a retry window of 1 minute expires into failed with the last reason", async () => {
    const rx = await receiver(() => ({ status: 503, body: "down for maintenance" }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`], retryWindowMinutes: 1 });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId, { timeoutMs: 110_000 });
    const d = detail.deliveries[0];
    expect(d.state).toBe("failed");
    expect(d.lastError).toMatch(/HTTP 503.*retry window of 1 min ended/);
    expect(d.attemptCount).toBeGreaterThanOrEqual(3);
    const last = detail.attempts[detail.attempts.length - 1];
    expect(last).toMatchObject({ outcome: "failed", nextRetryAt: null });
    const span = Date.parse(last.startedAt) - Date.parse(detail.attempts[0].startedAt);
    expect(span).toBeLessThanOrEqual(60_000);
    expect(await hasQueuedJob(d.id)).toBe(false);
  }, 150_000);
});

describe("modes with three URLs", () => {
  it("any: one 2xx completes the message; the failing URL is not retried", async () => {
    const ok1 = await receiver();
    const ok2 = await receiver();
    const bad = await receiver(() => ({ status: 503 }));
    const dest = await ctx.destination({ urls: [`${ok1.url}/a`, `${bad.url}/b`, `${ok2.url}/c`], mode: "any" });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 1 });
    expect(detail.attempts).toHaveLength(3);
    expect(await hasQueuedJob(detail.deliveries[0].id)).toBe(false);
    expect([ok1.requests.length, bad.requests.length, ok2.requests.length]).toEqual([1, 1, 1]);
  });

  it("every: each URL is retried on its own until it succeeds", async () => {
    const ok1 = await receiver();
    const ok2 = await receiver();
    const flaky = await receiver((_r, i) => (i < 2 ? { status: 503 } : { status: 200 }));
    const dest = await ctx.destination({ urls: [`${ok1.url}/a`, `${flaky.url}/b`, `${ok2.url}/c`], mode: "every" });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 3 });
    expect([ok1.requests.length, flaky.requests.length, ok2.requests.length]).toEqual([1, 3, 1]);
    expect(detail.attempts.filter((a: any) => a.outcome === "success")).toHaveLength(3);
  });

  it("every: a URL failing for good ends the message failed once the others are done", async () => {
    const ok1 = await receiver();
    const gone = await receiver(() => ({ status: 410 }));
    const flaky = await receiver((_r, i) => (i < 1 ? { status: 503 } : { status: 200 }));
    const dest = await ctx.destination({ urls: [`${ok1.url}/a`, `${gone.url}/b`, `${flaky.url}/c`], mode: "every" });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", userId: "u", event: "E" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0].state).toBe("failed");
    expect(detail.deliveries[0].lastError).toContain(`${gone.url}/b: HTTP 410`);
    expect([ok1.requests.length, gone.requests.length, flaky.requests.length]).toEqual([1, 1, 2]);
  });
});

describe("replay", () => {
  it("re-queues failed messages by id and by filter, with a dry run first", async () => {
    let fixed = false;
    const rx = await receiver(() => (fixed ? { status: 200 } : { status: 400, body: "bad" }));
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const rowIds = await ctx.send(dest.id, [
      { type: "track", userId: "r1", event: "E" },
      { type: "track", userId: "r2", event: "E" },
      { type: "track", userId: "r3", event: "E" },
    ]);
    for (const id of rowIds) expect((await ctx.settled(id)).deliveries[0].state).toBe("failed");

    expect(await ctx.api.post("/api/messages/replay", { ids: [rowIds[0]], dryRun: true })).toMatchObject({ count: 1 });
    fixed = true;
    expect(await ctx.api.post("/api/messages/replay", { ids: [rowIds[0]] })).toEqual({ replayed: 1 });
    // A replay is a new delivery linked to the original, which keeps its record.
    const replayed = await ctx.settled(rowIds[0]);
    expect(replayed.deliveries).toHaveLength(2);
    expect(replayed.deliveries[0]).toMatchObject({ state: "failed", replayOf: null, replayNumber: 0 });
    expect(replayed.deliveries[1]).toMatchObject({
      state: "delivered",
      attemptCount: 1,
      replayOf: replayed.deliveries[0].id,
      replayNumber: 1,
    });
    expect(replayed.attempts.map((a: any) => a.outcome)).toEqual(["failed", "success"]);

    const filter = { destinationId: dest.id, outcome: "failed" };
    expect(await ctx.api.post("/api/messages/replay", { filter, dryRun: true })).toMatchObject({ count: 2 });
    expect(await ctx.api.post("/api/messages/replay", { filter })).toEqual({ replayed: 2 });
    for (const id of rowIds.slice(1)) expect((await ctx.settled(id)).deliveries.map((d: any) => d.state)).toEqual(["failed", "delivered"]);
    // Delivered ones are replayed only when asked for explicitly.
    expect(await ctx.api.post("/api/messages/replay", { ids: rowIds, dryRun: true })).toMatchObject({ count: 0 });
    expect(await ctx.api.post("/api/messages/replay", { ids: rowIds, includeDelivered: true, dryRun: true })).toMatchObject({ count: 3 });
    const bad = await ctx.api.request("POST", "/api/messages/replay", {});
    expect(bad.status).toBe(422);
  });
});
