// Opt-in batching (docs/request-shape.md#batching), against real receivers on 127.0.0.1: the body
// is a JSON array of the events' bodies, X-Signature covers the whole body (checked in Node and in
// Python's hmac), a batch's bytes are fixed when built (retries re-send them), replays, deletion
// requests and a killed worker keep their meaning.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Received, type Receiver, type Responder } from "./harness/delivery/receiver";
import { startWorker, waitFor } from "./harness/stack";
import { pruneExpiredData } from "../lib/maintenance/retention";

const SECRET = "batch-shared-secret-0123";
const STANDARD = `whsec_${crypto.randomBytes(32).toString("base64")}`;

let ctx: DeliveryContext;
let db: pg.Client;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await startDeliveryContext({ EVENTRAIL_RETRY_BASE_MS: "300" });
  db = new pg.Client({ connectionString: ctx.stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await Promise.all(receivers.map((r) => r.close()));
  await ctx?.close();
});

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

const batched = (url: string, batch: { size: number; maxWaitMs: number }, extra: Record<string, unknown> = {}) =>
  ctx.destination({ urls: [url], sharedSecret: SECRET, standardSecret: STANDARD, batch, ...extra });

const tracks = (n: number, prefix: string, extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({
    type: "track",
    messageId: `${prefix}-${i}`,
    userId: `u${i}`,
    event: "Order Completed",
    ...extra(i),
  }));

/** X-Signature as a receiver computes it in Node: HMAC-SHA1 over the body's bytes exactly as received. */
const nodeSignature = (body: string) => crypto.createHmac("sha1", SECRET).update(Buffer.from(body, "utf8")).digest("hex");

/** The same check in Python's hmac, in a process of its own: the bodies go in on stdin, one verdict per line out. */
function pythonVerifies(requests: Received[]): boolean[] {
  const script = `
import hashlib, hmac, json, sys
secret = sys.argv[1].encode("utf-8")
for line in sys.stdin:
    r = json.loads(line)
    digest = hmac.new(secret, r["body"].encode("utf-8"), hashlib.sha1).hexdigest()
    print("ok" if hmac.compare_digest(digest, r["signature"]) else "bad")
`;
  const input = requests.map((r) => JSON.stringify({ body: r.body, signature: r.headers["x-signature"] })).join("\n");
  const out = execFileSync("python3", ["-c", script, SECRET], { input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return out
    .trim()
    .split("\n")
    .map((l) => l === "ok");
}

/** Every request's X-Signature checked over its whole body, in Node and in Python, and its Standard Webhooks signature. */
function expectSignedWhole(requests: Received[]) {
  const wh = new Webhook(STANDARD);
  for (const r of requests) {
    expect(r.headers["x-signature"]).toBe(nodeSignature(r.body));
    expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    expect(r.headers["webhook-id"]).toMatch(/^batch_[0-9a-f-]{36}$/);
  }
  expect(pythonVerifies(requests)).toEqual(requests.map(() => true));
}

const states = async (destinationId: string) =>
  (
    await db.query<{ state: string; n: number }>(
      "SELECT state, count(*)::int AS n FROM deliveries WHERE destination_id = $1 GROUP BY state ORDER BY state",
      [destinationId],
    )
  ).rows;

/** How many of the destination's deliveries joined a batch (delivery_batch_members). */
const joinedBatch = async (destinationId: string) =>
  (
    await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deliveries d JOIN delivery_batch_members m ON m.delivery_id = d.id WHERE d.destination_id = $1",
      [destinationId],
    )
  ).rows[0].n;

const allDelivered = (destinationId: string, n: number) =>
  waitFor(
    async () => {
      const s = await states(destinationId);
      return s.length === 1 && s[0].state === "delivered" && s[0].n === n;
    },
    { what: `${n} deliveries delivered` },
  );

describe("the body is a JSON array of the events' bodies, signed whole", () => {
  it("a batch of 100: one request carrying the 100 seed bodies in order, X-Signature over all of it (Node and Python)", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/hundred`, { size: 100, maxWaitMs: 30_000 });
    const rowIds = await ctx.send(dest.id, tracks(100, "h"));
    await allDelivered(dest.id, 100);
    expect(rx.requests).toHaveLength(1);
    const body = JSON.parse(rx.requests[0].body) as { messageId: string; version: number; event: string }[];
    expect(body.map((e) => e.messageId)).toEqual(tracks(100, "h").map((t) => t.messageId));
    expect(body[0]).toMatchObject({ version: 1, type: "track", event: "Order Completed", userId: "u0" });
    expectSignedWhole(rx.requests);

    // The attempt log: one attempt for the batch, on its lead; every event's delivery names the batch.
    const { rows: attempts } = await db.query("SELECT id::text, batch_id, request_body, user_id FROM attempts WHERE destination_id = $1", [
      dest.id,
    ]);
    expect(attempts).toHaveLength(1);
    expect(attempts[0].request_body).toBe(rx.requests[0].body);
    expect(attempts[0].user_id).toBeNull();
    expect(rx.requests[0].headers["webhook-id"]).toBe(`batch_${attempts[0].batch_id}`);
    const { rows: batchIds } = await db.query(
      "SELECT DISTINCT m.batch_id FROM deliveries d JOIN delivery_batch_members m ON m.delivery_id = d.id WHERE d.destination_id = $1",
      [dest.id],
    );
    expect(batchIds).toEqual([{ batch_id: attempts[0].batch_id }]);
    // The API: the attempt shows its batch and events; an event that did not lead it shows its batch and that attempt.
    const attempt = await ctx.api.get(`/api/attempts/${attempts[0].id}`);
    expect(attempt.batch).toEqual({ id: attempts[0].batch_id, events: 100 });
    expect(attempt.batchEvents.map((e: { messageId: string }) => e.messageId)).toEqual(tracks(100, "h").map((t) => t.messageId));
    const detail = await ctx.api.get(`/api/messages/${rowIds[57]}`);
    expect(detail.deliveries[0]).toMatchObject({ state: "delivered", batchId: attempts[0].batch_id });
    expect(detail.attempts.map((x: { id: string }) => x.id)).toEqual([attempts[0].id]);
  });

  it("a batch of 1: each event alone, still an array, signed whole", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/one`, { size: 1, maxWaitMs: 30_000 });
    await ctx.send(dest.id, tracks(3, "one"));
    await allDelivered(dest.id, 3);
    expect(rx.requests).toHaveLength(3);
    for (const r of rx.requests) expect(JSON.parse(r.body)).toHaveLength(1);
    expect(rx.requests.flatMap((r) => JSON.parse(r.body).map((e: { messageId: string }) => e.messageId)).sort()).toEqual([
      "one-0",
      "one-1",
      "one-2",
    ]);
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(3);
    expectSignedWhole(rx.requests);
  });

  it("closes early rather than pass 500 KB; an event alone over it goes in a batch of its own", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/big`, { size: 1000, maxWaitMs: 1_000 });
    // ~120 KB each: four fit under 500 KB, the fifth would not.
    const big = (i: number) => ({ properties: { blob: String(i).repeat(120_000) } });
    await ctx.send(dest.id, [...tracks(9, "big", big), ...tracks(1, "huge", () => ({ properties: { blob: "x".repeat(520_000) } }))]);
    await allDelivered(dest.id, 10);
    const sizes = rx.requests.map((r) => Buffer.byteLength(r.body));
    const counts = rx.requests.map((r) => JSON.parse(r.body).length as number);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(10);
    // Every batch stays under the limit except the event that is over it alone, which goes by itself.
    for (let i = 0; i < sizes.length; i++) if (sizes[i] > 500 * 1024) expect(counts[i]).toBe(1);
    expect(counts.filter((c) => c === 4).length).toBeGreaterThanOrEqual(2);
    expectSignedWhole(rx.requests);
  });
});

describe("a batch's bytes are fixed when built", () => {
  it("fails twice, then succeeds: the three attempts carry identical bytes, X-Signature and webhook-id", async () => {
    const rx = await receiver((_r, i) => ({ status: i < 2 ? 503 : 200 }));
    const dest = await batched(`${rx.url}/flaky`, { size: 5, maxWaitMs: 30_000 });
    await ctx.send(dest.id, tracks(5, "flaky"));
    await allDelivered(dest.id, 5);
    expect(rx.requests).toHaveLength(3);
    const [a, b, c] = rx.requests;
    expect(b.body).toBe(a.body);
    expect(c.body).toBe(a.body);
    expect(new Set(rx.requests.map((r) => r.headers["x-signature"])).size).toBe(1);
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expectSignedWhole(rx.requests);
    const { rows } = await db.query<{ attempt_count: number }>("SELECT DISTINCT attempt_count FROM deliveries WHERE destination_id = $1", [
      dest.id,
    ]);
    expect(rows).toEqual([{ attempt_count: 3 }]);
    const { rows: attempts } = await db.query("SELECT outcome FROM attempts WHERE destination_id = $1 ORDER BY id", [dest.id]);
    expect(attempts.map((r) => r.outcome)).toEqual(["retry", "retry", "success"]);
  });

  it("replaying one event of a delivered batch sends it again in a new batch, byte for byte its own part", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/replay`, { size: 3, maxWaitMs: 30_000 });
    const rowIds = await ctx.send(dest.id, tracks(3, "rp"));
    await allDelivered(dest.id, 3);
    expect(rx.requests).toHaveLength(1);
    const first = JSON.parse(rx.requests[0].body) as unknown[];
    // the replay waits out maxWaitMs for company: a destination's short wait keeps the test quick
    await ctx.api.patch(`/api/destinations/${dest.id}`, { batch: { size: 3, maxWaitMs: 200 } });
    await ctx.api.post("/api/messages/replay", { ids: [rowIds[1]], includeDelivered: true });
    await waitFor(async () => rx.requests.length === 2, { what: "the replay" });
    const replayed = rx.requests[1];
    expect(replayed.body).toBe(JSON.stringify([first[1]]));
    expect(replayed.headers["webhook-id"]).not.toBe(rx.requests[0].headers["webhook-id"]);
    // Bulk: the three replayed together fill a new batch (in the order the replay made them), each part as first sent.
    await ctx.api.patch(`/api/destinations/${dest.id}`, { batch: { size: 3, maxWaitMs: 30_000 } });
    await ctx.api.post("/api/messages/replay", { ids: rowIds, includeDelivered: true });
    await waitFor(async () => rx.requests.length === 3, { what: "the bulk replay" });
    const parts = (body: string) => (JSON.parse(body) as object[]).map((e) => JSON.stringify(e)).sort();
    expect(parts(rx.requests[2].body)).toEqual(parts(rx.requests[0].body));
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(3);
    expectSignedWhole(rx.requests);
  });
});

describe("deletion requests and batches", () => {
  it("a user's events in a batch already built but not yet delivered are not sent: the batch is rebuilt without them", async () => {
    let open = false;
    const rx = await receiver(() => ({ status: open ? 200 : 503 }));
    const dest = await batched(`${rx.url}/erase`, { size: 4, maxWaitMs: 30_000 });
    await ctx.send(dest.id, [
      { type: "track", messageId: "er-0", userId: "keep", event: "A" },
      { type: "track", messageId: "er-1", userId: "gone", event: "B", properties: { secret: "gone's data" } },
      { type: "track", messageId: "er-2", userId: "keep", event: "C" },
      { type: "track", messageId: "er-3", userId: "gone", event: "D" },
    ]);
    await waitFor(async () => rx.requests.length >= 1, { what: "the first attempt" });
    expect(JSON.parse(rx.requests[0].body)).toHaveLength(4);
    // Built when its four members joined: their parts live only in its stored body, which the
    // erasure takes the members left's back from (lib/delivery/batches-erase.ts).
    const { rows: parts } = await db.query<{ part: string | null }>(
      "SELECT m.part FROM delivery_batch_members m JOIN deliveries d ON d.id = m.delivery_id WHERE d.destination_id = $1",
      [dest.id],
    );
    expect(parts.map((p) => p.part)).toEqual([null, null, null, null]);
    const deletion = await ctx.api.post("/api/deletions", { userIds: ["gone"] });
    await waitFor(async () => (await ctx.api.get(`/api/deletions/${deletion.id}`)).status === "completed", {
      what: "the deletion request",
    });
    open = true;
    await waitFor(async () => rx.requests.some((r) => JSON.parse(r.body).length === 2), { what: "the rebuilt batch" });
    const last = rx.requests.at(-1)!;
    expect(JSON.parse(last.body).map((e: { messageId: string }) => e.messageId)).toEqual(["er-0", "er-2"]);
    // the events kept are the bytes first sent for them
    const first = JSON.parse(rx.requests[0].body) as unknown[];
    expect(last.body).toBe(`[${JSON.stringify(first[0])},${JSON.stringify(first[2])}]`);
    expect(last.body).not.toContain("gone");
    expectSignedWhole([last]);
    const { rows: bodies } = await db.query<{ body: string | null }>("SELECT body FROM delivery_batches WHERE destination_id = $1", [
      dest.id,
    ]);
    for (const b of bodies) expect(b.body ?? "").not.toContain("gone");
    const { rows: logged } = await db.query<{ request_body: string | null }>(
      "SELECT request_body FROM attempts WHERE destination_id = $1",
      [dest.id],
    );
    for (const a of logged) expect(a.request_body ?? "").not.toContain("gone");
  });

  it("a user's events in an open batch are never sent", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/erase-open`, { size: 10, maxWaitMs: 4_000 });
    await ctx.send(dest.id, [
      { type: "track", messageId: "eo-0", userId: "gone2", event: "A" },
      { type: "track", messageId: "eo-1", userId: "stays", event: "B" },
    ]);
    await waitFor(async () => (await joinedBatch(dest.id)) === 2, { what: "both to join the open batch" });
    const deletion = await ctx.api.post("/api/deletions", { userIds: ["gone2"] });
    await waitFor(async () => (await ctx.api.get(`/api/deletions/${deletion.id}`)).status === "completed", {
      what: "the deletion request",
    });
    await waitFor(async () => rx.requests.length === 1, { what: "the batch at its close time" });
    // the user's event is not in it; the deletion's notice to this destination is, batched like any event
    const sent = JSON.parse(rx.requests[0].body) as { type: string; messageId: string; userId: string }[];
    expect(sent.filter((e) => e.type !== "delete").map((e) => e.messageId)).toEqual(["eo-1"]);
    expect(sent.filter((e) => e.type === "delete").map((e) => e.userId)).toEqual(["gone2"]);
    expectSignedWhole(rx.requests);
  });
});

describe("durability", () => {
  it("a worker killed while a batch is open loses nothing: the next worker sends it whole", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/restart`, { size: 1000, maxWaitMs: 3_000 });
    await ctx.send(dest.id, tracks(20, "rs"));
    await waitFor(async () => (await joinedBatch(dest.id)) === 20, { what: "the events to join the open batch" });
    expect(rx.requests).toHaveLength(0);
    const worker = ctx.stack.workers[0];
    await worker.kill("SIGKILL");
    ctx.stack.workers[0] = await startWorker(ctx.stack.databaseUrl, { EVENTRAIL_RETRY_BASE_MS: "300" });
    await allDelivered(dest.id, 20);
    const ids = rx.requests.flatMap((r) => JSON.parse(r.body).map((e: { messageId: string }) => e.messageId));
    expect(new Set(ids)).toEqual(new Set(tracks(20, "rs").map((t) => t.messageId)));
    expectSignedWhole(rx.requests);
  });
});

describe("settings changed under a batch", () => {
  it("turning batching off while a batch is open still sends that batch whole; later events go one per request", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/off`, { size: 10, maxWaitMs: 1_500 });
    await ctx.send(dest.id, tracks(3, "off"));
    await waitFor(async () => (await joinedBatch(dest.id)) === 3, { what: "the events to join the open batch" });
    await ctx.api.patch(`/api/destinations/${dest.id}`, { batch: null });
    await allDelivered(dest.id, 3);
    expect(rx.requests).toHaveLength(1);
    expect(JSON.parse(rx.requests[0].body)).toHaveLength(3);
    await ctx.send(dest.id, tracks(1, "after"));
    await allDelivered(dest.id, 4);
    expect(JSON.parse(rx.requests[1].body)).toMatchObject({ messageId: "after-0" });
    expect(rx.requests[1].headers["webhook-id"]).toMatch(/^msg_/);
  });
});

describe("delivery modes and pause", () => {
  it("any mode: the first URL's success ends the batch; every mode: each URL until it succeeds", async () => {
    const ok = await receiver();
    const down = await receiver((_r, i) => ({ status: i < 1 ? 500 : 200 }));
    const any = await ctx.destination({ urls: [`${ok.url}/any`, `${down.url}/any`], batch: { size: 2, maxWaitMs: 30_000 } });
    await ctx.send(any.id, tracks(2, "any"));
    await allDelivered(any.id, 2);
    expect(ok.requests).toHaveLength(1);
    expect(down.requests.filter((r) => r.path === "/any")).toHaveLength(1);

    const every = await ctx.destination({
      urls: [`${ok.url}/every`, `${down.url}/every`],
      mode: "every",
      batch: { size: 2, maxWaitMs: 30_000 },
    });
    down.respond = (_r, i) => ({ status: i < 2 ? 500 : 200 });
    await ctx.send(every.id, tracks(2, "every"));
    await allDelivered(every.id, 2);
    const toOk = ok.requests.filter((r) => r.path === "/every");
    const toDown = down.requests.filter((r) => r.path === "/every");
    expect(toOk).toHaveLength(1);
    expect(toDown.length).toBeGreaterThanOrEqual(2);
    for (const r of toDown) expect(r.body).toBe(toOk[0].body);
  });

  it("paused: the batch waits, unsent; resumed: it goes", async () => {
    const rx = await receiver();
    const dest = await batched(`${rx.url}/pause`, { size: 3, maxWaitMs: 300 });
    await ctx.api.post(`/api/destinations/${dest.id}/pause`, {});
    await ctx.send(dest.id, tracks(3, "pz"));
    // the deliveries wait, pending and in no batch: nothing is sent while paused
    const { rows: pending } = await db.query(
      "SELECT d.state, m.batch_id FROM deliveries d LEFT JOIN delivery_batch_members m ON m.delivery_id = d.id WHERE d.destination_id = $1",
      [dest.id],
    );
    expect(pending).toEqual([0, 1, 2].map(() => ({ state: "pending", batch_id: null })));
    expect(rx.requests).toHaveLength(0);
    await ctx.api.post(`/api/destinations/${dest.id}/resume`, {});
    await allDelivered(dest.id, 3);
    expect(rx.requests).toHaveLength(1);
    expect(JSON.parse(rx.requests[0].body)).toHaveLength(3);
  });
});

describe("settings", () => {
  it("refuses a batch out of range or beside a URL template, at the field, and a destination without batching is unchanged", async () => {
    const bad = await ctx.api.request("POST", "/api/destinations", {
      name: "bad",
      urls: ["https://example.com/hook"],
      batch: { size: 0, maxWaitMs: 50 },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields)).toEqual(expect.arrayContaining(["batch.size", "batch.maxWaitMs"]));
    const templated = await ctx.api.request("POST", "/api/destinations", {
      name: "bad",
      urls: ["https://example.com/users/{{userId}}"],
      batch: { size: 10, maxWaitMs: 1000 },
    });
    expect(templated.status).toBe(422);
    const plain = await ctx.destination({ urls: ["https://example.com/hook"] });
    expect(plain.batch).toBeNull();
    const patched = await ctx.api.request("PATCH", `/api/destinations/${plain.id}`, { batch: { size: 50, maxWaitMs: 2000 } });
    expect(patched.status).toBe(200);
    expect(patched.body.batch).toEqual({ size: 50, maxWaitMs: 2000 });
  });
});

describe("retention", () => {
  it("a sent batch goes with its events' messages; one with events still pending stays (runs last: it prunes this file's database)", async () => {
    const rx = await receiver(() => ({ status: 503 }));
    const dest = await batched(`${rx.url}/kept`, { size: 2, maxWaitMs: 30_000 });
    await ctx.send(dest.id, tracks(2, "kept"));
    await waitFor(async () => rx.requests.length >= 1, { what: "the pending batch's first attempt" });
    const before = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM delivery_batches")).rows[0].n;
    const pool = new pg.Pool({ connectionString: ctx.stack.databaseUrl, max: 1 });
    const r = await pruneExpiredData({ days: { messages: 0, attempts: 0, captures: 0 }, now: new Date(Date.now() + 86_400_000), db: pool });
    await pool.end();
    // Left: exactly the batches with an event still pending (this one, and the deletion notices
    // other tests' deletion requests sent to destinations that wait 30 s for company).
    const { rows: left } = await db.query<{ destination_id: string; pending: boolean }>(
      `SELECT b.destination_id, EXISTS (SELECT 1 FROM delivery_batch_members m JOIN deliveries d ON d.id = m.delivery_id
                                          WHERE m.batch_id = b.id AND d.state = 'pending') AS pending
         FROM delivery_batches b`,
    );
    expect(left.map((b) => b.destination_id)).toContain(dest.id);
    expect(left.filter((b) => !b.pending)).toEqual([]);
    expect(r.deliveryBatches).toBe(before - left.length);
    expect(r.deliveryBatches).toBeGreaterThan(0);
  });
});
