/**
 * Seed conformance, round 2 (issue 13), delivery side: calls go in through `/v1` on `next start`,
 * the worker delivers them to real receivers on 127.0.0.1, and the tests check the bytes and
 * headers each receiver got. Items: 13.1 (every 5xx retried), 13.2 (context always sent),
 * 13.6 (replay only where it did not succeed), 13.7 (delete notices), 13.8 (webhook-id),
 * 13.10 (the status that delivered).
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver, type Responder } from "./harness/delivery/receiver";
import { type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";
import { openDb, postTracking, type Db } from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let db: Db;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // A short first retry step: retried statuses come back within a second or two.
  stack = await startStack({ workers: 1, env: { EVENTRAIL_RETRY_BASE_MS: "300" } });
  api = await stack.newWorkspace("conformance");
  db = openDb(stack.databaseUrl);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await db?.end();
  await stack?.stop();
});

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

type Source = { id: string; writeKey: string };
const source = (name: string): Promise<Source> => api.post("/api/sources", { name });
const destination = (body: Record<string, unknown>) =>
  api.post("/api/destinations", { name: "Hooks", headers: [], enabled: true, ...body });

async function send(src: Source, batch: object[]): Promise<void> {
  const res = await postTracking(stack.app.url, "/v1/batch", { batch }, { writeKey: src.writeKey });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: true });
}

/** The messages row id of (source, messageId). */
async function rowIdOf(src: Source, messageId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>("SELECT id FROM messages WHERE source_id = $1 AND message_id = $2", [src.id, messageId]);
  expect(rows).toHaveLength(1);
  return rows[0].id;
}

/** GET /api/messages/:id once it has `deliveries` deliveries and none is pending. */
function settled(rowId: string, deliveries = 1): Promise<any> {
  return waitFor(
    async () => {
      const d = await api.get(`/api/messages/${rowId}`);
      return d.deliveries.length === deliveries && d.deliveries.every((x: { state: string }) => x.state !== "pending") && d;
    },
    { timeoutMs: 60_000, what: `message ${rowId} to settle with ${deliveries} deliveries` },
  );
}

const bodiesOf = (r: Receiver) => r.requests.map((x) => x.body);

describe("13.1 every 5xx is retried (seed: “Response with a 5xx status: the request is retried”)", () => {
  it("501, then 505, then 200: retried with the same bytes, then delivered", async () => {
    const src = await source("five-hundreds");
    const statuses = [501, 505];
    const rx = await receiver((_r, i) => ({ status: statuses[i] ?? 200 }));
    await destination({ urls: [`${rx.url}/hook`], sourceIds: [src.id] });
    await send(src, [{ type: "track", messageId: "five-1", userId: "u5", event: "Retried", timestamp: "2026-01-01T00:00:00.000Z" }]);

    const detail = await settled(await rowIdOf(src, "five-1"));
    expect(detail.deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 3, lastStatus: 200 });
    expect(detail.attempts.map((a: any) => [a.responseStatus, a.outcome])).toEqual([
      [501, "retry"],
      [505, "retry"],
      [200, "success"],
    ]);
    expect(rx.requests).toHaveLength(3);
    expect(new Set(bodiesOf(rx)).size).toBe(1);
  });
});

describe("13.2 context is always an object (seed: “every call carries a context object”)", () => {
  it("every type but delete carries context — the call's own, or {} — byte for byte", async () => {
    const src = await source("context");
    const rx = await receiver();
    await destination({ urls: [`${rx.url}/hook`], sourceIds: [src.id] });
    const ts = "2026-02-03T04:05:06.789Z";
    await send(src, [
      { type: "track", messageId: "ctx-track", userId: "u1", event: "Bare", timestamp: ts },
      { type: "identify", messageId: "ctx-identify", userId: "u1", timestamp: ts },
      { type: "page", messageId: "ctx-page", anonymousId: "a1", timestamp: ts },
      { type: "group", messageId: "ctx-group", userId: "u1", groupId: "g1", timestamp: ts },
      { type: "alias", messageId: "ctx-alias", userId: "u1", previousId: "a1", timestamp: ts },
      { type: "screen", messageId: "ctx-screen", userId: "u1", name: "Home", timestamp: ts },
      { type: "track", messageId: "ctx-own", userId: "u1", event: "With", context: { ip: "203.0.113.7" }, timestamp: ts },
    ]);
    await waitFor(async () => rx.requests.length >= 7, { what: "7 deliveries" });
    const byId = new Map(rx.requests.map((r) => [JSON.parse(r.body).messageId as string, r.body]));
    const receivedAt = JSON.parse(byId.get("ctx-track")!).receivedAt;
    const tail = (messageId: string, anonymousId?: string) => ({ messageId, ...(anonymousId ? { anonymousId } : {}), receivedAt });
    const expected: Record<string, object> = {
      "ctx-track": {
        version: 1,
        type: "track",
        userId: "u1",
        event: "Bare",
        properties: {},
        timestamp: ts,
        context: {},
        ...tail("ctx-track"),
      },
      "ctx-identify": { version: 1, type: "identify", userId: "u1", traits: {}, timestamp: ts, context: {}, ...tail("ctx-identify") },
      "ctx-page": { version: 1, type: "page", userId: null, properties: {}, timestamp: ts, context: {}, ...tail("ctx-page", "a1") },
      "ctx-group": { version: 1, type: "group", groupId: "g1", userId: "u1", traits: {}, timestamp: ts, context: {}, ...tail("ctx-group") },
      "ctx-alias": { version: 1, type: "alias", "Previous ID": "a1", "User ID": "u1", timestamp: ts, context: {}, ...tail("ctx-alias") },
      "ctx-screen": { version: 1, type: "screen", userId: "u1", name: "Home", timestamp: ts, context: {}, ...tail("ctx-screen") },
      "ctx-own": {
        version: 1,
        type: "track",
        userId: "u1",
        event: "With",
        properties: {},
        timestamp: ts,
        context: { ip: "203.0.113.7" },
        ...tail("ctx-own"),
      },
    };
    for (const [id, body] of Object.entries(expected)) expect(byId.get(id), id).toBe(JSON.stringify(body));
  });
});

describe("13.10 a delivered delivery shows the status that delivered it", () => {
  it("any-mode: URL a answers 200 and URL b 500 in the same round → last_status 200", async () => {
    const src = await source("status");
    const ok = await receiver();
    const broken = await receiver(() => ({ status: 500 }));
    await destination({ urls: [`${ok.url}/a`, `${broken.url}/b`], mode: "any", sourceIds: [src.id] });
    await send(src, [{ type: "track", messageId: "st-1", userId: "u", event: "E" }]);
    const detail = await settled(await rowIdOf(src, "st-1"));
    expect(detail.deliveries[0]).toMatchObject({ state: "delivered", lastStatus: 200, lastError: null });
    expect(detail.attempts.map((a: any) => a.responseStatus).sort()).toEqual([200, 500]);
  });
});

describe("13.8 webhook-id is unique in the workspace and stable across retries", () => {
  it("two sources sending the same messageId to one destination get two webhook-ids, each the same on its retry", async () => {
    const [s1, s2] = [await source("wh-1"), await source("wh-2")];
    const seen = new Map<string, number>();
    // The first request of each webhook-id is answered 503: every delivery is retried once.
    const rx = await receiver((r) => {
      const id = String(r.headers["webhook-id"]);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return { status: seen.get(id) === 1 ? 503 : 200 };
    });
    const dest = await destination({ urls: [`${rx.url}/hook`], standardWebhooks: true, sourceIds: [s1.id, s2.id] });
    await send(s1, [{ type: "track", messageId: "same-id", userId: "u1", event: "E" }]);
    await send(s2, [{ type: "track", messageId: "same-id", userId: "u2", event: "E" }]);
    const rows = [await rowIdOf(s1, "same-id"), await rowIdOf(s2, "same-id")];
    for (const row of rows) expect((await settled(row)).deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 2 });

    expect(rx.requests).toHaveLength(4);
    const ids = rx.requests.map((r) => r.headers["webhook-id"]);
    expect(new Set(ids)).toEqual(new Set(rows.map((row) => `msg_${row}`)));
    for (const id of new Set(ids)) expect(ids.filter((x) => x === id)).toHaveLength(2);
    const { value: standardSecret } = await api.post(`/api/destinations/${dest.id}/reveal`, { secret: "standardSecret" });
    const wh = new Webhook(standardSecret as string);
    for (const r of rx.requests) expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
  });
});

describe("13.6 replay re-sends only where the message did not succeed; each replay is a new, linked delivery", () => {
  it("delivered to A, failed at B: a replay reaches B and not A; includeDelivered is the explicit way to reach A again", async () => {
    const src = await source("replay");
    let fixed = false;
    const a = await receiver();
    const b = await receiver(() => ({ status: fixed ? 200 : 400 }));
    const destA = await destination({ name: "A", urls: [`${a.url}/a`], sourceIds: [src.id] });
    const destB = await destination({ name: "B", urls: [`${b.url}/b`], standardWebhooks: true, sourceIds: [src.id] });
    await send(src, [{ type: "track", messageId: "rp-1", userId: "u", event: "E" }]);
    const row = await rowIdOf(src, "rp-1");
    const first = await settled(row, 2);
    const originalB = first.deliveries.find((d: any) => d.destinationId === destB.id);
    expect(first.deliveries.find((d: any) => d.destinationId === destA.id)).toMatchObject({ state: "delivered", replayOf: null });
    expect(originalB).toMatchObject({ state: "failed", replayOf: null });

    fixed = true;
    expect(await api.post("/api/messages/replay", { ids: [row], dryRun: true })).toMatchObject({ count: 1 });
    expect(await api.post("/api/messages/replay", { ids: [row] })).toEqual({ replayed: 1 });
    const after = await settled(row, 3);
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(2);
    const replay = after.deliveries.find((d: any) => d.replayOf === originalB.id);
    expect(replay).toMatchObject({ destinationId: destB.id, state: "delivered", lastStatus: 200, attemptCount: 1 });
    // The original keeps its own record; the replay's attempt is linked to it.
    expect(after.deliveries.find((d: any) => d.id === originalB.id)).toMatchObject({ state: "failed", lastStatus: 400 });
    const replayAttempt = after.attempts.find((x: any) => x.deliveryId === replay.id);
    expect(replayAttempt).toMatchObject({ replayOf: originalB.id, responseStatus: 200, outcome: "success" });
    const listed = await api.get(`/api/attempts?messageId=rp-1&destinationId=${destB.id}`);
    expect(listed.attempts.map((x: any) => x.replayOf)).toEqual([originalB.id, null]);
    // The same message keeps its webhook-id on a replay: a receiver's dedupe sees one message.
    expect(b.requests[1].headers["webhook-id"]).toBe(b.requests[0].headers["webhook-id"]);
    expect(b.requests[1].body).toBe(b.requests[0].body);

    // Nothing is left that did not succeed: a plain replay sends nothing.
    expect(await api.post("/api/messages/replay", { ids: [row] })).toEqual({ replayed: 0 });
    // Re-sending where it succeeded is an explicit choice: the latest delivery of each destination.
    expect(await api.post("/api/messages/replay", { ids: [row], includeDelivered: true })).toEqual({ replayed: 2 });
    await settled(row, 5);
    expect(a.requests).toHaveLength(2);
    expect(b.requests).toHaveLength(3);
  });

  it("every-mode: the URLs that answered 200 are not hit again", async () => {
    const src = await source("replay-every");
    let fixed = false;
    const x = await receiver();
    const y = await receiver(() => ({ status: fixed ? 200 : 400 }));
    const z = await receiver();
    await destination({ urls: [`${x.url}/x`, `${y.url}/y`, `${z.url}/z`], mode: "every", sourceIds: [src.id] });
    await send(src, [{ type: "track", messageId: "rpe-1", userId: "u", event: "E" }]);
    const row = await rowIdOf(src, "rpe-1");
    expect((await settled(row)).deliveries[0].state).toBe("failed");
    expect([x.requests.length, y.requests.length, z.requests.length]).toEqual([1, 1, 1]);

    fixed = true;
    expect(await api.post("/api/messages/replay", { ids: [row] })).toEqual({ replayed: 1 });
    const after = await settled(row, 2);
    expect(after.deliveries.map((d: any) => d.state)).toEqual(["failed", "delivered"]);
    expect([x.requests.length, y.requests.length, z.requests.length]).toEqual([1, 2, 1]);
  });

  it("a replay by filter takes only the latest failed delivery of each chain", async () => {
    const src = await source("replay-filter");
    let fixed = false;
    const rx = await receiver(() => ({ status: fixed ? 200 : 404 }));
    const dest = await destination({ urls: [`${rx.url}/f`], sourceIds: [src.id] });
    await send(src, [{ type: "track", messageId: "rpf-1", userId: "u", event: "E" }]);
    const row = await rowIdOf(src, "rpf-1");
    await settled(row);
    // A replay that fails again: the chain now has two failed deliveries.
    expect(await api.post("/api/messages/replay", { ids: [row] })).toEqual({ replayed: 1 });
    await settled(row, 2);
    fixed = true;
    const filter = { destinationId: dest.id, outcome: "failed" };
    expect(await api.post("/api/messages/replay", { filter, dryRun: true })).toMatchObject({ count: 1 });
    expect(await api.post("/api/messages/replay", { filter })).toEqual({ replayed: 1 });
    const after = await settled(row, 3);
    expect(after.deliveries.map((d: any) => d.state)).toEqual(["failed", "failed", "delivered"]);
    expect(rx.requests).toHaveLength(3);
    expect(await api.post("/api/messages/replay", { filter, dryRun: true })).toMatchObject({ count: 0 });
  });
});

describe("13.7 delete notices of two sources are two messages", () => {
  it("one user in two sources: the destination on both gets two notices with their own messageIds and webhook-ids", async () => {
    const [s1, s2] = [await source("del-1"), await source("del-2")];
    const rx = await receiver();
    await destination({ urls: [`${rx.url}/hook`], standardWebhooks: true, sourceIds: [s1.id, s2.id] });
    await send(s1, [{ type: "track", messageId: "d1", userId: "leaving", event: "E" }]);
    await send(s2, [{ type: "track", messageId: "d2", userId: "leaving", event: "E" }]);
    await waitFor(async () => rx.requests.length === 2, { what: "the two tracks" });

    const created = await api.post("/api/deletions", { userIds: ["leaving"] });
    const done = await waitFor(
      async () => {
        const d = await api.get(`/api/deletions/${created.id}`);
        return d.status === "completed" && d.notifications.length === 2 && d.notificationTotals.pending === 0 && d;
      },
      { timeoutMs: 60_000, what: "the deletion's notices" },
    );
    const messageIds = done.notifications.map((n: any) => n.messageId);
    expect(new Set(messageIds).size).toBe(2);
    const notices = rx.requests.filter((r) => JSON.parse(r.body).type === "delete");
    expect(notices).toHaveLength(2);
    // The seed's delete shape with its messageId, exactly; the notices differ by messageId and webhook-id.
    expect(new Set(notices.map((n) => n.body))).toEqual(
      new Set(
        messageIds.map((messageId: string) => JSON.stringify({ type: "delete", userId: "leaving", timestamp: done.createdAt, messageId })),
      ),
    );
    expect(new Set(notices.map((n) => n.headers["webhook-id"]))).toEqual(
      new Set(done.notifications.map((n: any) => `msg_${n.messageRowId}`)),
    );
  });
});
