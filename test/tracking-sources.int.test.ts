/**
 * A Go-client-shaped request, write keys that change under the app (rotation, disabling), and the
 * source debugger (GET /api/sources/:id/events).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, startStack, type Stack } from "./harness/stack";
import {
  basic,
  createDestination,
  createSource,
  deliveriesByMessage,
  openDb,
  postTracking,
  storedMessages,
  type Db,
} from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let other: ApiClient;
let db: Db;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  api = await stack.newWorkspace("sources");
  other = await stack.newWorkspace("other");
  db = openDb(stack.databaseUrl);
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

describe("an analytics-go client", () => {
  it("is stored with +0000 timestamps read as UTC, batch context merged, and batch null answered 200", async () => {
    const source = await createSource(api, "Go backend");
    const dest = await createDestination(db, { workspaceId: source.workspaceId, name: "go hook", sourceIds: [source.id] });
    const headers = { authorization: basic(source.writeKey), "user-agent": "analytics-go (version: 2.1.0)" };
    // analytics-go v2's batch: messages, its own messageId, sentAt and library context at the top.
    const body = {
      batch: [
        { type: "identify", userId: "go-1", traits: { plan: "team" }, messageId: "go-msg-1", timestamp: "2026-11-21T15:05:50+0000" },
        {
          type: "track",
          userId: "go-1",
          event: "Download",
          properties: { size: 12 },
          messageId: "go-msg-2",
          timestamp: "2026-11-21T15:05:51+0000",
          integrations: { All: false },
        },
        {
          type: "page",
          userId: "go-1",
          name: "Docs",
          properties: { url: "https://x.test/docs" },
          messageId: "go-msg-3",
          timestamp: "2026-11-21T16:05:52+0100",
        },
      ],
      messageId: "go-batch-1",
      sentAt: "2026-11-21T15:05:53+0000",
      context: { library: { name: "analytics-go", version: "2.1.0" } },
    };
    const res = await postTracking(stack.app.url, "/v1/batch", body, { headers });
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    const empty = await postTracking(
      stack.app.url,
      "/v1/batch",
      { batch: null, messageId: "go-batch-2", sentAt: "2026-11-21T15:05:54+0000" },
      { headers },
    );
    expect(empty).toMatchObject({ status: 200, body: { success: true } });

    const rows = await storedMessages(db, source.id);
    expect(rows.map((r) => r.message_id).sort()).toEqual(["go-msg-1", "go-msg-2", "go-msg-3"]);
    const byId = Object.fromEntries(rows.map((r) => [r.message_id, r]));
    expect(byId["go-msg-1"].payload).toMatchObject({
      type: "identify",
      userId: "go-1",
      traits: { plan: "team" },
      context: { library: { name: "analytics-go", version: "2.1.0" } },
      originalTimestamp: "2026-11-21T15:05:50.000Z",
      sentAt: "2026-11-21T15:05:53.000Z",
    });
    expect(byId["go-msg-3"].payload.originalTimestamp).toBe("2026-11-21T15:05:52.000Z");
    // The client's clock was 3 s behind its send: the event happened 3 s before arrival.
    for (const r of rows)
      expect(r.timestamp.getTime()).toBe(r.received_at.getTime() - (r.sent_at!.getTime() - r.original_timestamp!.getTime()));
    expect(byId["go-msg-1"].received_at.getTime() - byId["go-msg-1"].timestamp.getTime()).toBe(3_000);
    const routed = await deliveriesByMessage(db, source.id);
    expect(routed.get("go-msg-1")).toEqual([dest]);
    expect(routed.has("go-msg-2")).toBe(false);
  });
});

describe("single-call endpoints", () => {
  it("store each call type from its own endpoint, and /v1/import takes a batch", async () => {
    const source = await createSource(api, "single calls");
    const key = { writeKey: source.writeKey };
    const calls: [string, object][] = [
      ["/v1/identify", { userId: "s", traits: { plan: "pro" }, messageId: "single-identify" }],
      ["/v1/track", { userId: "s", event: "Clicked", properties: { x: 1 }, messageId: "single-track" }],
      ["/v1/page", { anonymousId: "a", name: "Home", properties: { path: "/" }, messageId: "single-page" }],
      ["/v1/screen", { userId: "s", name: "Settings", messageId: "single-screen" }],
      ["/v1/group", { userId: "s", groupId: "g1", traits: { seats: 5 }, messageId: "single-group" }],
      // writeKey in the body works for single calls too, and is never stored.
      ["/v1/alias", { userId: "s", previousId: "a", messageId: "single-alias", writeKey: source.writeKey }],
    ];
    for (const [path, body] of calls) {
      const res = await postTracking(stack.app.url, path, body, path === "/v1/alias" ? {} : key);
      expect(res, path).toMatchObject({ status: 200, body: { success: true } });
    }
    const imported = await postTracking(
      stack.app.url,
      "/v1/import",
      { batch: [{ type: "track", userId: "s", event: "Old", messageId: "single-import", timestamp: "2015-01-01T00:00:00Z" }] },
      key,
    );
    expect(imported.status).toBe(200);

    const rows = await storedMessages(db, source.id);
    const byId = Object.fromEntries(rows.map((r) => [r.message_id, r]));
    for (const type of ["identify", "track", "page", "screen", "group", "alias"]) expect(byId[`single-${type}`].type).toBe(type);
    expect(byId["single-group"].payload).toMatchObject({ groupId: "g1", traits: { seats: 5 } });
    expect(byId["single-alias"].payload).toMatchObject({ previousId: "a", userId: "s" });
    expect(JSON.stringify(rows.map((r) => r.payload))).not.toContain(source.writeKey);
    // No sentAt: a historical import keeps the client's timestamp as is.
    expect(byId["single-import"].payload.timestamp).toBe("2015-01-01T00:00:00.000Z");
  });
});

describe("write keys", () => {
  it("stop working at once when rotated or the source is disabled, and work again when re-enabled", async () => {
    const source = await createSource(api, "rotating");
    const send = (key: string) => postTracking(stack.app.url, "/v1/identify", { userId: "u" }, { writeKey: key });
    expect((await send(source.writeKey)).status).toBe(200);
    const rotated = await api.post(`/api/sources/${source.id}/rotate-key`);
    expect((await send(source.writeKey)).status).toBe(401);
    expect((await send(rotated.writeKey)).status).toBe(200);
    await api.patch(`/api/sources/${source.id}`, { enabled: false });
    const refused = await send(rotated.writeKey);
    expect(refused).toMatchObject({
      status: 401,
      body: { success: false, error: { code: "unauthorized", message: expect.stringMatching(/disabled/) } },
    });
    await api.patch(`/api/sources/${source.id}`, { enabled: true });
    expect((await send(rotated.writeKey)).status).toBe(200);
    expect(await storedMessages(db, source.id)).toHaveLength(3);
  });
});

describe("write key rotation with a grace period", () => {
  it("keeps the old key working until the grace period ends, then answers it 401; the new key works throughout", async () => {
    const source = await createSource(api, "graceful");
    const send = (key: string, userId: string) => postTracking(stack.app.url, "/v1/identify", { userId }, { writeKey: key });
    const rotated = await api.post(`/api/sources/${source.id}/rotate-key`, { graceMinutes: 60 });
    expect(rotated.writeKey).not.toBe(source.writeKey);
    expect(rotated.previousWriteKey.prefix).toBe(source.writeKey.slice(0, 6));
    const left = new Date(rotated.previousWriteKey.expiresAt).getTime() - Date.now();
    expect(left).toBeGreaterThan(55 * 60_000);
    expect(left).toBeLessThanOrEqual(60 * 60_000);
    // The whole old key is never shown again.
    expect(JSON.stringify(await api.get(`/api/sources/${source.id}`))).not.toContain(source.writeKey);

    expect((await send(source.writeKey, "old-key")).status).toBe(200);
    expect((await send(rotated.writeKey, "new-key")).status).toBe(200);
    // Both keys name the same source: the old key's calls are stored (and routed) as the source's.
    expect((await storedMessages(db, source.id)).map((m) => m.user_id).sort()).toEqual(["new-key", "old-key"]);

    // The grace period ends (set in the database, whose clock the Tracking API compares with).
    await db.query("UPDATE sources SET previous_write_key_expires_at = now() - interval '1 second' WHERE id = $1", [source.id]);
    expect((await send(source.writeKey, "old-key-late")).status).toBe(401);
    expect((await send(rotated.writeKey, "new-key-late")).status).toBe(200);
    expect((await api.get(`/api/sources/${source.id}`)).previousWriteKey).toBeNull();

    // No grace period: the key being replaced stops at once, and so does any older one still in its grace.
    const second = await api.post(`/api/sources/${source.id}/rotate-key`, { graceMinutes: 1440 });
    expect((await send(rotated.writeKey, "grace-again")).status).toBe(200);
    const third = await api.post(`/api/sources/${source.id}/rotate-key`, { graceMinutes: 0 });
    expect(third.previousWriteKey).toBeNull();
    expect((await send(rotated.writeKey, "x")).status).toBe(401);
    expect((await send(second.writeKey, "x")).status).toBe(401);
    expect((await send(third.writeKey, "third")).status).toBe(200);
  });

  it("refuses a grace period that is not 0 to 7 days in whole minutes, and rotates nothing", async () => {
    const source = await createSource(api, "grace-checked");
    for (const [graceMinutes, message] of [
      [-1, "At least 0 (the old key stops at once)"],
      [10081, "At most 10080 minutes (7 days)"],
      [1.5, "Whole minutes"],
      ["60", "A number of minutes"],
    ] as const) {
      const res = await api.request("POST", `/api/sources/${source.id}/rotate-key`, { graceMinutes });
      expect(res.status).toBe(422);
      expect(res.body.error.fields).toEqual({ graceMinutes: [message] });
    }
    expect((await api.request("POST", `/api/sources/${source.id}/rotate-key`, { grace: 5 })).status).toBe(422);
    expect((await api.get(`/api/sources/${source.id}`)).writeKey).toBe(source.writeKey);
  });
});

describe("source debugger", () => {
  it("lists recent calls newest first, accepted and rejected with reasons and JSON", async () => {
    const source = await createSource(api, "debugged");
    const key = { writeKey: source.writeKey };
    await postTracking(stack.app.url, "/v1/track", { userId: "d", event: "First", messageId: "dbg-1" }, key);
    await postTracking(
      stack.app.url,
      "/v1/batch",
      {
        batch: [
          { type: "track", userId: "d", messageId: "dbg-bad" },
          { type: "identify", userId: "d", messageId: "dbg-2" },
        ],
      },
      key,
    );
    await postTracking(stack.app.url, "/v1/batch", "{not json", key);

    const { events } = await api.get(`/api/sources/${source.id}/events?limit=10`);
    expect(events.map((e: { accepted: boolean; messageId: string | null }) => [e.accepted, e.messageId])).toEqual([
      [false, null],
      [true, "dbg-2"],
      [false, "dbg-bad"],
      [true, "dbg-1"],
    ]);
    const [refused, second, bad, first] = events;
    expect(refused.reason).toMatch(/not valid JSON/);
    expect(refused.payload).toEqual({ body: "{not json" });
    expect(second).toMatchObject({ type: "identify", reason: null, payload: { type: "identify", userId: "d", messageId: "dbg-2" } });
    expect(bad).toMatchObject({
      type: "track",
      reason: "message 0: track requires an event name",
      payload: { type: "track", userId: "d", messageId: "dbg-bad" },
    });
    expect(first.payload).toMatchObject({ event: "First" });
    for (const e of events) expect(Number.isNaN(Date.parse(e.receivedAt))).toBe(false);
    expect(Date.parse(first.receivedAt)).toBeLessThanOrEqual(Date.parse(refused.receivedAt));

    const limited = await api.get(`/api/sources/${source.id}/events?limit=2`);
    expect(limited.events.map((e: { id: string }) => e.id)).toEqual(events.slice(0, 2).map((e: { id: string }) => e.id));
  });

  it("is workspace-scoped and authenticated", async () => {
    const source = await createSource(api, "private");
    expect((await other.request("GET", `/api/sources/${source.id}/events`)).status).toBe(404);
    expect((await fetch(`${stack.app.url}/api/sources/${source.id}/events`)).status).toBe(401);
    expect((await api.request("GET", `/api/sources/00000000-0000-0000-0000-000000000000/events`)).status).toBe(404);
    expect((await api.request("GET", `/api/sources/not-a-uuid/events`)).status).toBe(404);
    const bad = await api.request("GET", `/api/sources/${source.id}/events?limit=0`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields.limit).toBeDefined();
  });

  it("keeps the rejected-call log bounded per source, never showing the write key", async () => {
    const source = await createSource(api, "noisy");
    const batch = Array.from({ length: 700 }, (_, i) => ({ type: "track", userId: "n", messageId: `noisy-${i}`, writeKey: "leaked?" }));
    const res = await postTracking(stack.app.url, "/v1/batch", { batch }, { writeKey: source.writeKey });
    expect(res.body.rejected).toHaveLength(700);
    await postTracking(stack.app.url, "/v1/batch", { batch: batch.slice(0, 10) }, { writeKey: source.writeKey });
    const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM source_calls WHERE source_id = $1", [source.id]);
    expect(rows[0].n).toBe(500);
    const { events } = await api.get(`/api/sources/${source.id}/events?limit=200`);
    expect(JSON.stringify(events)).not.toContain(source.writeKey);
    expect(events[0].payload.writeKey).toBe("[redacted]");
  });
});
