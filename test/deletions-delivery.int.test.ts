/**
 * Deletion end to end: data arrives through /v1/batch, destinations are made with the API, the
 * worker erases and the delivery engine sends the delete notices to real receivers on 127.0.0.1.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, startStack, waitFor, type Stack } from "./harness/stack";
import { count } from "./harness/deletions/seed";
import { startReceiver, type Receiver } from "./harness/deletions/receiver";

let stack: Stack;
let api: ApiClient;
let db: pg.Pool;
const receivers: Receiver[] = [];

beforeAll(async () => {
  // Short first retry step, so the failing receiver's retries come within seconds.
  stack = await startStack({ workers: 1, env: { EVENTRAIL_RETRY_BASE_MS: "500" } });
  api = await stack.newWorkspace("deletions");
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await db?.end();
  await stack?.stop();
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function batch(writeKey: string, calls: object[]) {
  const res = await fetch(`${stack.app.url}/v1/batch`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify({ batch: calls }),
  });
  expect(res.status).toBe(200);
}

const deleteBodies = (r: Receiver) => r.received.map((x) => JSON.parse(x.body)).filter((b) => b.type === "delete");

async function finishedWithDeliveries(id: string) {
  return waitFor(
    async () => {
      const d = await api.get(`/api/deletions/${id}`);
      return d.status === "completed" && d.notificationTotals.pending === 0 ? d : undefined;
    },
    { timeoutMs: 120_000, what: "the deletion and its notices to finish" },
  );
}

describe("deletion requests, end to end", () => {
  it("erases a user with data in two sources and notifies exactly the right destinations", async () => {
    const web = await api.post("/api/sources", { name: "Web" });
    const backend = await api.post("/api/sources", { name: "Backend" });
    const mobile = await api.post("/api/sources", { name: "Mobile" });
    const [rWeb, rBoth, rBackend, rDisabled, rMobile] = [
      await receiver(),
      await receiver(),
      await receiver(),
      await receiver(),
      await receiver(),
    ];
    const secret = "shh-its-a-secret";
    const mk = (name: string, r: Receiver, sourceIds: string[], extra: object = {}) =>
      api.post("/api/destinations", { name, urls: [r.url], headers: [], enabled: true, sourceIds, ...extra });
    await mk("web-only", rWeb, [web.id], { sharedSecret: secret });
    await mk("both", rBoth, [web.id, backend.id]);
    const backendOnly = await mk("backend-only", rBackend, [backend.id]);
    await mk("disabled", rDisabled, [web.id, backend.id], { enabled: false });
    await mk("mobile-only", rMobile, [mobile.id]);

    const ts = "2026-01-01T10:00:00.000Z";
    await batch(web.writeKey, [
      // Before logging in alice is anonymous; identify joins anon-alice to her.
      { type: "page", anonymousId: "anon-alice", name: "Pricing", timestamp: ts },
      { type: "identify", userId: "alice", anonymousId: "anon-alice", traits: { email: "alice@example.com", plan: "pro" }, timestamp: ts },
      { type: "track", userId: "alice", event: "Order Completed", properties: { total: 42 }, timestamp: ts },
      { type: "identify", userId: "bob", traits: { email: "bob@example.com", plan: "pro" }, timestamp: ts },
      { type: "track", userId: "bob", event: "Order Completed", properties: { total: 7 }, timestamp: ts },
    ]);
    await batch(backend.writeKey, [{ type: "track", userId: "alice", event: "Invoice Paid", timestamp: ts }]);
    await batch(mobile.writeKey, [{ type: "track", userId: "bob", event: "App Opened", timestamp: ts }]);
    // Every ingested message delivered first, so the attempt log holds the users' payloads.
    await waitFor(async () => (await count(db, "deliveries WHERE state <> 'delivered'")) === 0 && (await count(db, "deliveries")) === 13, {
      timeoutMs: 60_000,
      what: "ingest deliveries",
    });
    expect(await count(db, "attempts WHERE request_body LIKE '%alice%'")).toBe(8);
    expect(await count(db, "identity_links WHERE anonymous_id = 'anon-alice' AND user_id = 'alice'")).toBe(1);
    const audience = await api.post("/api/audiences", {
      name: "Pro",
      sourceIds: [web.id],
      condition: { trait: "plan", op: "equals", value: "pro" },
    });
    await waitFor(async () => (await api.get(`/api/audiences/${audience.id}`)).size === 2, {
      timeoutMs: 60_000,
      what: "the audience's first sync",
    });

    // The backend-only receiver fails twice: the notice is retried until it gets through.
    rBackend.answer([503, 500]);
    const created = await api.post("/api/deletions", { userIds: ["alice"] });
    const d = await finishedWithDeliveries(created.id);

    expect(d.affectedSources.map((s: { name: string }) => s.name).sort()).toEqual(["Backend", "Web"]);
    const sent = d.notifications.map((n: any) => `${n.source.name}→${n.destination.name}:${n.state}`).sort();
    expect(sent).toEqual(["Backend→backend-only:delivered", "Backend→both:delivered", "Web→both:delivered", "Web→web-only:delivered"]);

    // One notice per (source, user), each with its own messageId (the notification's).
    const exact = { type: "delete", userId: "alice", timestamp: d.createdAt, messageId: expect.stringMatching(/^delete-/) };
    expect(deleteBodies(rWeb)).toEqual([exact]);
    expect(deleteBodies(rBoth)).toEqual([exact, exact]); // one per affected source
    expect(new Set(deleteBodies(rBoth).map((b) => b.messageId)).size).toBe(2);
    expect(deleteBodies(rDisabled)).toEqual([]);
    expect(deleteBodies(rMobile)).toEqual([]);
    // Exactly these bytes, signed like every other webhook.
    const signed = rWeb.received.find((x) => JSON.parse(x.body).type === "delete")!;
    expect(signed.body).toBe(JSON.stringify({ ...exact, messageId: JSON.parse(signed.body).messageId }));
    expect(signed.headers["x-signature"]).toBe(crypto.createHmac("sha1", secret).update(signed.body).digest("hex"));

    // Retried: the same notice reached the failing receiver three times (503, 500, 200), all logged.
    expect(deleteBodies(rBackend)).toEqual([exact, exact, exact]);
    const retried = d.notifications.find((n: any) => n.destination.id === backendOnly.id);
    expect(retried.attemptCount).toBe(3);

    // alice's data is gone — her anonymous page too; attempts keep their metadata without bodies.
    expect(await count(db, "messages WHERE (user_id = 'alice' OR anonymous_id = 'anon-alice') AND origin <> 'deletion'")).toBe(0);
    expect(await count(db, "messages WHERE payload::text LIKE '%alice@example.com%' OR payload::text LIKE '%anon-alice%'")).toBe(0);
    expect(await count(db, "attempts WHERE type <> 'delete' AND user_id = 'alice'")).toBe(6);
    expect(await count(db, "attempts WHERE type <> 'delete' AND request_body LIKE '%alice%'")).toBe(0);
    expect(
      await count(db, "attempts WHERE type = 'page' AND request_body IS NULL AND response_body IS NULL AND response_status = 200"),
    ).toBe(2);
    expect(await count(db, "profiles WHERE user_id = 'alice'")).toBe(0);
    expect(await count(db, "identity_links WHERE user_id = 'alice'")).toBe(0);
    expect(await count(db, "audience_members WHERE user_id = 'alice'")).toBe(0);
    // bob is untouched.
    expect(await count(db, "messages WHERE user_id = 'bob' AND payload IS NOT NULL")).toBe(3);
    expect(await count(db, "attempts WHERE user_id = 'bob' AND request_body LIKE '%bob%'")).toBe(5);
    expect(await count(db, "profiles WHERE user_id = 'bob' AND traits->>'plan' = 'pro'")).toBe(1);
    expect((await api.get(`/api/audiences/${audience.id}`)).size).toBe(1);
  });

  it("completes for an unknown user with nothing affected and nothing sent, and re-submitting is harmless", async () => {
    const src = await api.post("/api/sources", { name: "Solo" });
    const r = await receiver();
    await api.post("/api/destinations", { name: "solo", urls: [r.url], headers: [], enabled: true, sourceIds: [src.id] });
    await batch(src.writeKey, [{ type: "track", userId: "carol", event: "Signed Up" }]);
    await waitFor(async () => r.received.length === 1, { what: "carol's track to arrive" });

    const ghost = await finishedWithDeliveries((await api.post("/api/deletions", { userIds: ["ghost"] })).id);
    expect(ghost).toMatchObject({ affectedSources: [], notifications: [], notificationCount: 0 });

    const first = await finishedWithDeliveries((await api.post("/api/deletions", { userIds: ["carol"] })).id);
    expect(first.notificationCount).toBe(1);
    const again = await finishedWithDeliveries((await api.post("/api/deletions", { userIds: ["carol"] })).id);
    expect(again).toMatchObject({ affectedSources: [], notifications: [], notificationCount: 0 });
    // A track, one delete notice, nothing else — also nothing late from the ghost or the repeat.
    await waitFor(async () => r.received.length >= 2, { what: "carol's notice" });
    expect(r.received.map((x) => JSON.parse(x.body).type)).toEqual(["track", "delete"]);
  });
});
