/**
 * Seed conformance, round 2 (issue 13.3): no real client reads `rejected` in a 200, so every
 * rejection must be visible where someone looks — the single-message endpoints answer 400 (which
 * @segment/analytics-node 3 and analytics-node 6 report), and the source page, the debugger, the
 * metrics and the source's health show what /v1/batch rejected message by message.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Analytics } from "@segment/analytics-node";
import LegacyAnalytics from "analytics-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonOfBytes, messageOfBytes, utf8Bytes } from "./harness/exact-bodies";
import { parseMetrics, sumOf } from "./harness/metrics-text";
import { ADMIN_TOKEN, type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";
import { createSource, openDb, postTracking, type Db, type TestSource } from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let db: Db;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  api = await stack.newWorkspace("rejections");
  db = openDb(stack.databaseUrl);
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const storedCount = async (sourceId: string) =>
  (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE source_id = $1", [sourceId])).rows[0].n;

describe("(a) a single-message endpoint answers an invalid message with a 400 that clients report", () => {
  it("@segment/analytics-node 3 pointed at /v1/track reports the 400, and nothing is stored", async () => {
    const src = await createSource(api, "segment-node");
    // The client posts its batch body to the path it is given: on /v1/track that body is not a message.
    const analytics = new Analytics({ writeKey: src.writeKey, host: stack.app.url, path: "/v1/track", flushAt: 1, maxRetries: 0 });
    const emitted: unknown[] = [];
    analytics.on("error", (e) => emitted.push(e));
    const callbackError = await new Promise<unknown>((resolve) =>
      analytics.track({ userId: "u1", event: "Order Completed" }, (err) => resolve(err)),
    );
    await analytics.closeAndFlush({ timeout: 10_000 });
    expect(String((callbackError as { reason?: Error })?.reason ?? callbackError)).toMatch(/400/);
    expect(emitted).toHaveLength(1);
    expect(await storedCount(src.id)).toBe(0);
    // The operator sees it too: the debugger names the reason.
    const { events } = await api.get(`/api/sources/${src.id}/events`);
    expect(events).toEqual([expect.objectContaining({ accepted: false, reason: expect.stringMatching(/userId or anonymousId/) })]);
  });

  it("analytics-node 6 pointed at /v1/identify reports the 400, and nothing is stored", async () => {
    const src = await createSource(api, "legacy-node");
    // Its error handler gets what it reports: the HTTP error, status included.
    const handled: unknown[] = [];
    const analytics = new LegacyAnalytics(src.writeKey, {
      host: stack.app.url,
      path: "/v1/identify",
      flushAt: 1,
      retryCount: 0,
      errorHandler: (e) => handled.push(e),
    });
    const err = await new Promise<Error | undefined>((resolve) => analytics.identify({ userId: "u1", traits: { plan: "pro" } }, resolve));
    expect((err as { response?: { status?: number } })?.response?.status).toBe(400);
    expect(handled).toEqual([err]);
    expect(await storedCount(src.id)).toBe(0);
  });

  it("/v1/track answers Segment's error shape naming the reason; a valid call is still a 200; /v1/batch keeps the good messages", async () => {
    const src = await createSource(api, "raw");
    const bad = await postTracking(stack.app.url, "/v1/track", { userId: "u1", properties: { a: 1 } }, { writeKey: src.writeKey });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      success: false,
      code: "invalid_message",
      message: "The message was rejected: track requires an event name",
      error: { code: "invalid_message", message: "The message was rejected: track requires an event name" },
    });
    for (const [path, body] of [
      ["/v1/identify", { traits: { plan: "pro" } }],
      ["/v1/group", { userId: "u1" }],
      ["/v1/alias", { userId: "u1" }],
      ["/v1/page", { name: "Home", timestamp: "yesterday" }],
      ["/v1/screen", { userId: "u1", properties: "not an object" }],
    ] as const) {
      const res = await postTracking(stack.app.url, path, body, { writeKey: src.writeKey });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe("invalid_message");
    }
    expect(await storedCount(src.id)).toBe(0);

    const good = await postTracking(stack.app.url, "/v1/track", { userId: "u1", event: "E" }, { writeKey: src.writeKey });
    expect(good).toMatchObject({ status: 200, body: { success: true } });
    const batch = await postTracking(
      stack.app.url,
      "/v1/batch",
      {
        batch: [
          { type: "track", userId: "u1", event: "E" },
          { type: "track", userId: "u1" },
        ],
      },
      { writeKey: src.writeKey },
    );
    expect(batch.status).toBe(200);
    expect(batch.body).toEqual({ success: true, rejected: [{ index: 1, messageId: null, reason: "track requires an event name" }] });
    expect(await storedCount(src.id)).toBe(2);
  });
});

describe("(13.3) the 32 KB limit is measured on the message as the client sent it", () => {
  /** The bytes of the one message in the batch that the client sends for `properties`, read by a receiver on 127.0.0.1. */
  async function clientMessageBytes(properties: Record<string, unknown>): Promise<number> {
    let body = "";
    const server = http.createServer((req, res) => {
      req.setEncoding("utf8");
      req.on("data", (d) => (body += d));
      req.on("end", () => res.end('{"success":true}'));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const analytics = new Analytics({ writeKey: "measure", host: `http://127.0.0.1:${port}`, flushAt: 1, maxRetries: 0 });
    await new Promise((resolve) => analytics.track({ userId: "u1", event: "Big", messageId: "big-1", properties }, resolve));
    await analytics.closeAndFlush({ timeout: 10_000 });
    await new Promise((r) => server.close(r));
    return Buffer.byteLength(JSON.stringify(JSON.parse(body).batch[0]), "utf8");
  }

  it("a 32,748-byte message from @segment/analytics-node is accepted and stored", async () => {
    const src = await createSource(api, "segment-node-size");
    const probe = await clientMessageBytes({ blob: "" });
    const properties = { blob: "x".repeat(32_748 - probe) };
    expect(await clientMessageBytes(properties)).toBe(32_748);
    const analytics = new Analytics({ writeKey: src.writeKey, host: stack.app.url, flushAt: 1, maxRetries: 0 });
    const err = await new Promise((resolve) => analytics.track({ userId: "u1", event: "Big", messageId: "big-1", properties }, resolve));
    await analytics.closeAndFlush({ timeout: 10_000 });
    expect(err).toBeUndefined();
    // Stored whole, with the fields the server adds on top of the client's 32,748 bytes.
    const { rows } = await db.query(
      "SELECT octet_length(payload::text) AS n, payload->'properties'->>'blob' AS blob FROM messages WHERE source_id = $1",
      [src.id],
    );
    expect(rows).toEqual([{ n: expect.any(Number), blob: properties.blob }]);
    expect(rows[0].n).toBeGreaterThan(32 * 1024);
    const { events } = await api.get(`/api/sources/${src.id}/events`);
    expect(events.filter((e: any) => !e.accepted)).toEqual([]);
    // One byte over the limit as sent is still refused, with its size as sent.
    const over = { type: "track", userId: "u1", event: "Big", messageId: "big-2", properties: { blob: "x".repeat(32_769 - 89) } };
    expect(Buffer.byteLength(JSON.stringify(over))).toBe(32_769);
    const res = await postTracking(stack.app.url, "/v1/batch", { batch: [over] }, { writeKey: src.writeKey });
    expect(res.body.rejected).toEqual([
      { index: 0, messageId: "big-2", reason: "message is 32,769 bytes (33 KB); the limit is 32 KB per message" },
    ]);
  });
});

describe("(issue 40) the 32 KB message limit at exactly 32,768 bytes as sent, one byte over and one under", () => {
  const LIMIT = 32 * 1024;
  const sizes = [
    ["one byte under", LIMIT - 1, true],
    ["exactly", LIMIT, true],
    ["one byte over", LIMIT + 1, false],
  ] as const;
  const stored = async (sourceId: string) =>
    (
      await db.query<{ message_id: string }>("SELECT message_id FROM messages WHERE source_id = $1 ORDER BY message_id", [sourceId])
    ).rows.map((r) => r.message_id);

  it("/v1/batch: the message's own JSON in the body is what is measured; 32,767 and 32,768 bytes are stored, 32,769 rejected", async () => {
    const src = await createSource(api, "limit-32k-batch");
    const messages = sizes.map(([, bytes]) =>
      messageOfBytes({ type: "track", userId: "u1", event: "Big", messageId: `m-${bytes}` }, bytes),
    );
    expect(messages.map((m) => utf8Bytes(JSON.stringify(m)))).toEqual([32_767, 32_768, 32_769]);
    const res = await postTracking(stack.app.url, "/v1/batch", { batch: messages }, { writeKey: src.writeKey });
    expect(res.status).toBe(200);
    expect(res.body.rejected).toEqual([
      { index: 2, messageId: "m-32769", reason: "message is 32,769 bytes (33 KB); the limit is 32 KB per message" },
    ]);
    expect(await stored(src.id)).toEqual(["m-32767", "m-32768"]);
  });

  it("/v1/batch: whitespace as the client wrote it counts; the same message pretty-printed to 32,769 bytes is rejected", async () => {
    const src = await createSource(api, "limit-32k-spaces");
    // Compact, each is 32,759 bytes; written with the spaces below, 32,768 and 32,769 bytes as sent.
    const at = messageOfBytes({ type: "track", userId: "u1", event: "Big", messageId: "spaced-at" }, 32_759);
    const over = messageOfBytes({ type: "track", userId: "u1", event: "Big", messageId: "spaced-over" }, 32_759);
    const spaced = (m: Record<string, unknown>, spaces: number) => `{${" ".repeat(spaces)}${JSON.stringify(m).slice(1)}`;
    expect([utf8Bytes(spaced(at, 9)), utf8Bytes(spaced(over, 10))]).toEqual([32_768, 32_769]);
    const body = `{"batch":[${spaced(at, 9)},${spaced(over, 10)}]}`;
    const res = await postTracking(stack.app.url, "/v1/batch", body, { writeKey: src.writeKey });
    expect(res.status).toBe(200);
    expect(res.body.rejected).toEqual([
      { index: 1, messageId: "spaced-over", reason: "message is 32,769 bytes (33 KB); the limit is 32 KB per message" },
    ]);
    expect(await stored(src.id)).toEqual(["spaced-at"]);
  });

  it.each(sizes)("/v1/track: a message of %s 32 KB (%i bytes), accepted: %s", async (_what, bytes, accepted) => {
    const src = await createSource(api, `limit-32k-track-${bytes}`);
    const body = jsonOfBytes(messageOfBytes({ userId: "u1", event: "Big", messageId: `t-${bytes}` }, bytes), bytes);
    expect(utf8Bytes(body)).toBe(bytes);
    const res = await postTracking(stack.app.url, "/v1/track", body, { writeKey: src.writeKey });
    if (accepted) {
      expect(res).toMatchObject({ status: 200, body: { success: true } });
      expect(await stored(src.id)).toEqual([`t-${bytes}`]);
    } else {
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: "invalid_message",
        message: "The message was rejected: message is 32,769 bytes (33 KB); the limit is 32 KB per message",
      });
      expect(await stored(src.id)).toEqual([]);
    }
  });
});

describe("(13.4) a timestamp outside the years 0001–9999 rejects its message alone, never the batch", () => {
  it("@segment/analytics-node's batch with one such message: a 200, the good message stored, the bad one in the debugger", async () => {
    const src = await createSource(api, "segment-node-timestamps");
    // maxRetries 0: before the fix the 500 made the client drop both messages (it retried 4 times).
    const analytics = new Analytics({ writeKey: src.writeKey, host: stack.app.url, flushAt: 2, maxRetries: 0 });
    const sent = (call: (cb: (err?: unknown) => void) => void) => new Promise<unknown>((resolve) => call(resolve));
    const results = await Promise.all([
      sent((cb) => analytics.track({ userId: "u1", event: "good", messageId: "good-1" }, cb)),
      sent((cb) => analytics.track({ userId: "u1", event: "bad", messageId: "bad-1", timestamp: "0000-06-01T00:00:00Z" }, cb)),
    ]);
    await analytics.closeAndFlush({ timeout: 10_000 });
    expect(results).toEqual([undefined, undefined]);
    expect((await db.query("SELECT message_id FROM messages WHERE source_id = $1", [src.id])).rows).toEqual([{ message_id: "good-1" }]);
    const { events } = await api.get(`/api/sources/${src.id}/events`);
    expect(events.filter((e: any) => !e.accepted)).toEqual([
      expect.objectContaining({
        messageId: "bad-1",
        reason: 'message 1: timestamp "0000-06-01T00:00:00Z" is outside the years 0001–9999 (UTC)',
      }),
    ]);
  });

  it("each bad timestamp and each ±10,000-year skew is rejected with its reason; the rest of the batch is stored", async () => {
    const src = await createSource(api, "raw-timestamps");
    const msg = (id: string, extra: Record<string, string> = {}) => ({ type: "track", userId: "u1", event: "E", messageId: id, ...extra });
    const res = await postTracking(
      stack.app.url,
      "/v1/batch",
      {
        batch: [
          msg("good-a"),
          msg("year-zero", { timestamp: "0000-06-01T00:00:00Z" }),
          msg("before-year-one", { timestamp: "0001-01-01T00:00:00+01:00" }),
          msg("after-9999", { timestamp: "9999-12-31T23:59:59-23:59" }),
          msg("skew-back", { timestamp: "0001-06-01T00:00:00Z", sentAt: "9999-06-01T00:00:00Z" }),
          msg("skew-forward", { timestamp: "9999-06-01T00:00:00Z", sentAt: "0001-06-01T00:00:00Z" }),
          msg("edge", { timestamp: "0001-01-01T00:00:00Z" }),
        ],
      },
      { writeKey: src.writeKey },
    );
    expect(res.status).toBe(200);
    const skew = "timestamp corrected for the client's clock skew (sentAt − timestamp) falls outside the years 0001–9999 (UTC)";
    expect(res.body.rejected).toEqual([
      { index: 1, messageId: "year-zero", reason: 'timestamp "0000-06-01T00:00:00Z" is outside the years 0001–9999 (UTC)' },
      { index: 2, messageId: "before-year-one", reason: 'timestamp "0001-01-01T00:00:00+01:00" is outside the years 0001–9999 (UTC)' },
      { index: 3, messageId: "after-9999", reason: 'timestamp "9999-12-31T23:59:59-23:59" is outside the years 0001–9999 (UTC)' },
      { index: 4, messageId: "skew-back", reason: skew },
      { index: 5, messageId: "skew-forward", reason: skew },
    ]);
    const stored = await db.query("SELECT message_id, timestamp FROM messages WHERE source_id = $1 ORDER BY message_id", [src.id]);
    expect(stored.rows.map((r) => r.message_id)).toEqual(["edge", "good-a"]);
    const single = await postTracking(stack.app.url, "/v1/track", msg("single", { timestamp: "0000-06-01T00:00:00Z" }), {
      writeKey: src.writeKey,
    });
    expect(single.status).toBe(400);
    // The batch's own sentAt covers every message in it: out of range, the batch is refused with a 400.
    const batchSentAt = await postTracking(
      stack.app.url,
      "/v1/batch",
      { sentAt: "0000-01-01T00:00:00Z", batch: [msg("x")] },
      {
        writeKey: src.writeKey,
      },
    );
    expect(batchSentAt.status).toBe(400);
    expect(batchSentAt.body.error.message).toMatch(/outside the years 0001–9999/);
  });
});

describe("(b, c, d) rejections show on the source page, in /metrics and in the source's health", () => {
  let rejecting: TestSource;
  let healthy: TestSource;
  let idle: TestSource;

  beforeAll(async () => {
    [rejecting, healthy, idle] = [
      await createSource(api, "rejecting"),
      await createSource(api, "healthy"),
      await createSource(api, "idle"),
    ];
    const good = (i: number) => ({ type: "track", userId: `u${i}`, event: "E" });
    // 4 good, 6 rejected: 3 without any id, 2 tracks without event, 1 with a timestamp that is no date.
    const res = await postTracking(
      stack.app.url,
      "/v1/batch",
      {
        batch: [
          good(1),
          { type: "track", event: "E" },
          { type: "track", event: "E" },
          good(2),
          { type: "identify", traits: {} },
          { type: "track", userId: "u3" },
          { type: "track", userId: "u3" },
          good(3),
          { type: "track", userId: "u4", event: "E", timestamp: "31/12/2026" },
          good(4),
        ],
      },
      { writeKey: rejecting.writeKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.rejected).toHaveLength(6);
    const ok = await postTracking(stack.app.url, "/v1/batch", { batch: [good(5), good(6)] }, { writeKey: healthy.writeKey });
    expect(ok.body).toEqual({ success: true });
  });

  it("the source DTO counts the last 24 hours' rejections by reason and says the source is rejecting", async () => {
    const src = await api.get(`/api/sources/${rejecting.id}`);
    expect(src.health).toEqual({
      state: "rejecting",
      recent: { calls: 10, rejected: 6, windowMinutes: 60 },
      rejectedLast24h: { total: 6, byReason: { missing_id: 3, missing_field: 2, invalid_timestamp: 1 } },
    });
    const { sources } = await api.get("/api/sources");
    const state = Object.fromEntries(sources.map((s: any) => [s.name, s.health.state]));
    expect(state).toMatchObject({ rejecting: "rejecting", healthy: "healthy", idle: "idle" });
    expect(sources.find((s: any) => s.id === idle.id).health.rejectedLast24h).toEqual({ total: 0, byReason: {} });
    // Each rejection is in the debugger with its reason.
    const { events } = await api.get(`/api/sources/${rejecting.id}/events`);
    expect(events.filter((e: any) => !e.accepted).map((e: any) => e.reason)).toHaveLength(6);
  });

  it("a disabled source says so", async () => {
    await api.patch(`/api/sources/${idle.id}`, { enabled: false });
    expect((await api.get(`/api/sources/${idle.id}`)).health.state).toBe("disabled");
  });

  it("/metrics counts rejections by source and reason category, never the reason's text", async () => {
    const series = await waitFor(
      async () => {
        const res = await fetch(`${stack.app.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        const s = parseMetrics(await res.text());
        return sumOf(s, "eventrail_tracking_rejections_total", { source: rejecting.id }) === 6 && s;
      },
      { timeoutMs: 30_000, what: "the rejections in /metrics" },
    );
    const reasons = series.filter((s) => s.name === "eventrail_tracking_rejections_total" && s.labels.source === rejecting.id);
    expect(Object.fromEntries(reasons.map((s) => [s.labels.reason, s.value]))).toEqual({
      missing_id: 3,
      missing_field: 2,
      invalid_timestamp: 1,
    });
    expect(sumOf(series, "eventrail_tracking_rejections_total", { source: healthy.id })).toBe(0);
  });
});
