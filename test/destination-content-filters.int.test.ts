// Filters on what is inside a call, field drop/allow lists, sampling (docs/routing.md#conditions,
// #field-lists, #sampling) and pause/resume (docs/routing.md#pause), end to end: calls through /v1,
// a real worker process, a real receiver on 127.0.0.1, the attempt log read back through the API.
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampledIn } from "../lib/routing/sampling";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { postTracking } from "./harness/tracking";

let ctx: DeliveryContext;
let writeKey: string;
let rx: Receiver;
let db: pg.Client;

beforeAll(async () => {
  ctx = await startDeliveryContext();
  writeKey = (await ctx.api.get(`/api/sources/${ctx.sourceId}`)).writeKey;
  rx = await startReceiver();
  db = new pg.Client({ connectionString: ctx.stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await rx?.close();
  await ctx?.close();
});

const send = async (batch: object[], key = writeKey) => {
  const res = await postTracking(ctx.stack.app.url, "/v1/batch", { batch }, { writeKey: key });
  expect(res.status).toBe(200);
};
const receivedAt = (path: string) => rx.requests.filter((r) => r.path === path);
const idsAt = (path: string) => receivedAt(path).map((r) => JSON.parse(r.body).messageId as string);

describe("conditions and field lists", () => {
  it("deliver only calls meeting the conditions (a nested number), without the dropped fields, signed as sent and logged as sent", async () => {
    const big = await ctx.destination({
      name: "big orders, no PII",
      urls: [`${rx.url}/big`],
      sharedSecret: "filters-secret",
      filter: {
        types: ["track", "identify"],
        events: { mode: "all" },
        where: {
          any: [
            {
              all: [
                { field: "event", op: "equals", value: "Order Completed" },
                { field: "properties.order.total", op: "gt", value: 100 },
              ],
            },
            { field: "traits.plan", op: "in", value: ["pro", "enterprise"] },
          ],
        },
        drop: ["context.ip", "traits.email"],
      },
    });
    expect(big.filter).toMatchObject({ samplePercent: 100, drop: ["context.ip", "traits.email"], allow: [] });
    const plain = await ctx.destination({ name: "everything", urls: [`${rx.url}/plain`] });
    const context = { ip: "203.0.113.9", page: { path: "/checkout" } };
    await send([
      { type: "track", event: "Order Completed", userId: "u1", messageId: "c-big", properties: { order: { total: 149.5 } }, context },
      { type: "track", event: "Order Completed", userId: "u1", messageId: "c-small", properties: { order: { total: 20 } }, context },
      { type: "track", event: "Viewed", userId: "u1", messageId: "c-viewed", properties: { order: { total: 500 } }, context },
      { type: "identify", userId: "u1", messageId: "c-pro", traits: { plan: "pro", email: "a@example.com" }, context },
      { type: "identify", userId: "u2", messageId: "c-free", traits: { plan: "free", email: "b@example.com" }, context },
    ]);
    await waitFor(async () => receivedAt("/plain").length === 5 && receivedAt("/big").length === 2, { what: "the filtered deliveries" });
    expect(idsAt("/big").sort()).toEqual(["c-big", "c-pro"]);

    const bigOrder = JSON.parse(receivedAt("/big").find((r) => r.body.includes('"c-big"'))!.body);
    expect(bigOrder.context).toEqual({ page: { path: "/checkout" } });
    expect(bigOrder.properties).toEqual({ order: { total: 149.5 } });
    const pro = receivedAt("/big").find((r) => r.body.includes('"c-pro"'))!;
    expect(JSON.parse(pro.body).traits).toEqual({ plan: "pro" });
    // The signature (the seed's X-Signature, HMAC-SHA1) is over the body as sent, after the drop.
    const expected = crypto.createHmac("sha1", "filters-secret").update(pro.body).digest("hex");
    expect(pro.headers["x-signature"]).toBe(expected);
    // The destination without lists gets the field, untouched.
    const plainPro = JSON.parse(receivedAt("/plain").find((r) => r.body.includes('"c-pro"'))!.body);
    expect(plainPro.context.ip).toBe("203.0.113.9");
    expect(plainPro.traits.email).toBe("a@example.com");

    // The attempt log shows the body as sent, byte for byte. An attempt is recorded after its answer
    // came back, so a receipt can come before its log row: wait for the log, not the receiver.
    const attempts = await waitFor(
      async () => {
        const page = await ctx.api.get<{ attempts: { id: string }[] }>(`/api/attempts?destinationId=${big.id}`);
        return page.attempts.length >= 2 && page.attempts;
      },
      { what: "both attempts logged" },
    );
    expect(attempts).toHaveLength(2);
    for (const a of attempts) {
      const detail = await ctx.api.get(`/api/attempts/${a.id}`);
      const sent = receivedAt("/big").find((r) => JSON.parse(r.body).messageId === detail.messageId)!;
      expect(detail.requestBody).toBe(sent.body);
      expect(detail.requestBody).not.toContain("203.0.113.9");
    }
    // No delivery at all for the calls the conditions left out.
    const { rows } = await db.query("SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1", [
      plain.id === big.id ? "" : big.id,
    ]);
    expect(rows[0].n).toBe(2);

    // The preview counts the same calls the same way, and shows a body as the lists would send it.
    const preview = await ctx.api.post("/api/destinations/filter-preview", { sourceIds: [ctx.sourceId], filter: big.filter });
    expect(preview).toMatchObject({ considered: 5, passed: 2, excluded: { integrations: 0, typeOrEvent: 0, conditions: 3, sampling: 0 } });
    expect(preview.example.built.context.ip).toBe("203.0.113.9");
    expect(preview.example.sent.context).toEqual({ page: { path: "/checkout" } });

    await ctx.api.request("DELETE", `/api/destinations/${big.id}`);
    await ctx.api.request("DELETE", `/api/destinations/${plain.id}`);
  });

  it("are refused with field errors when malformed", async () => {
    const bad = await ctx.api.request("POST", "/api/destinations", {
      name: "bad",
      urls: [`${rx.url}/x`],
      filter: {
        types: ["track"],
        events: { mode: "all" },
        where: { all: [{ field: "properties.total", op: "gt", value: true }] },
        samplePercent: 0,
        drop: ["messageId"],
        allow: ["userId"],
      },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual([
      "filter.allow.0",
      "filter.drop.0",
      "filter.samplePercent",
      "filter.where.all.0.value",
    ]);
  });
});

describe("sampling", () => {
  it("takes the same calls when the same messageIds are routed again", async () => {
    const sampled = await ctx.destination({
      name: "half",
      urls: [`${rx.url}/half`],
      filter: { types: ["track"], events: { mode: "all" }, samplePercent: 50 },
    });
    const ids = Array.from({ length: 40 }, (_, i) => `s-${i}`);
    await send(ids.map((messageId) => ({ type: "track", event: "E", userId: "u", messageId })));
    const expected = ids.filter((id) => sampledIn(id, 50)).sort();
    expect(expected.length).toBeGreaterThan(5);
    expect(expected.length).toBeLessThan(35);
    await waitFor(async () => receivedAt("/half").length === expected.length, { what: "the sampled deliveries" });
    expect(idsAt("/half").sort()).toEqual(expected);
    // The preview samples the same way: of the source's track calls so far, those not sampled in are left out by sampling.
    const preview = await ctx.api.post("/api/destinations/filter-preview", { sourceIds: [ctx.sourceId], filter: sampled.filter });
    const tracks = [...ids, "c-big", "c-small", "c-viewed"];
    expect(preview).toMatchObject({
      considered: tracks.length + 2,
      passed: tracks.filter((id) => sampledIn(id, 50)).length,
      excluded: { typeOrEvent: 2, conditions: 0, sampling: tracks.filter((id) => !sampledIn(id, 50)).length },
    });

    // The same calls again, from a second source (messageIds are unique per source): the same ones go.
    const second = await ctx.api.post("/api/sources", { name: "Replayer" });
    await ctx.api.patch(`/api/destinations/${sampled.id}`, { sourceIds: [ctx.sourceId, second.id] });
    await send(
      ids.map((messageId) => ({ type: "track", event: "E", userId: "u", messageId })),
      second.writeKey,
    );
    await waitFor(async () => receivedAt("/half").length === 2 * expected.length, { what: "the replayed sample" });
    const counts = new Map<string, number>();
    for (const id of idsAt("/half")) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(expected);
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
    await ctx.api.request("DELETE", `/api/destinations/${sampled.id}`);
  });
});

describe("pause and resume", () => {
  it("hold deliveries unsent and unattempted while paused, and send them all on resume", async () => {
    const paused = await ctx.destination({ name: "paused", urls: [`${rx.url}/paused`] });
    const running = await ctx.destination({ name: "running", urls: [`${rx.url}/running`] });
    const p = await ctx.api.post(`/api/destinations/${paused.id}/pause`, {});
    expect(p.pausedAt).toEqual(expect.any(String));
    // Pausing again changes nothing.
    expect((await ctx.api.post(`/api/destinations/${paused.id}/pause`, {})).pausedAt).toBe(p.pausedAt);

    const ids = Array.from({ length: 6 }, (_, i) => `p-${i}`);
    await send(ids.map((messageId) => ({ type: "track", event: "E", userId: "u", messageId })));
    // The running destination's deliveries ride the same deliver job: once they arrived, the paused
    // ones were looked at and left waiting.
    await waitFor(async () => receivedAt("/running").length === ids.length, { what: "the running destination's deliveries" });
    expect(receivedAt("/paused")).toHaveLength(0);
    const waiting = await db.query<{ state: string; attempt_count: number }>(
      "SELECT state, attempt_count FROM deliveries WHERE destination_id = $1",
      [paused.id],
    );
    expect(waiting.rows).toHaveLength(ids.length);
    expect(waiting.rows.every((r) => r.state === "pending" && r.attempt_count === 0)).toBe(true);
    expect((await ctx.api.get(`/api/attempts?destinationId=${paused.id}`)).attempts).toHaveLength(0);
    // A test-send still goes: a person asked for it, to check the endpoint before resuming.
    const tested = await ctx.api.post(`/api/destinations/${paused.id}/test`, { type: "track", payload: { messageId: "p-test" } });
    expect(tested.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(["success"]);
    expect(idsAt("/paused")).toEqual(["p-test"]);

    // Paused for 3 hours, with one delivery first attempted 10 minutes before the pause: resumed, its
    // window has 10 minutes used, not 3 h 10 min.
    await db.query("UPDATE destinations SET paused_at = now() - interval '3 hours' WHERE id = $1", [paused.id]);
    const {
      rows: [early],
    } = await db.query<{ id: string }>(
      "UPDATE deliveries SET first_attempt_at = now() - interval '190 minutes' WHERE id = (SELECT id FROM deliveries WHERE destination_id = $1 AND state = 'pending' LIMIT 1) RETURNING id",
      [paused.id],
    );
    const r = await ctx.api.post(`/api/destinations/${paused.id}/resume`, {});
    expect(r.pausedAt).toBeNull();
    await waitFor(async () => receivedAt("/paused").length === ids.length + 1, { what: "the resumed deliveries" });
    expect(idsAt("/paused").sort()).toEqual([...ids, "p-test"].sort());
    const moved = await db.query<{ used_s: number }>(
      "SELECT extract(epoch FROM now() - first_attempt_at)::int AS used_s FROM deliveries WHERE id = $1",
      [early.id],
    );
    expect(moved.rows[0].used_s).toBeGreaterThanOrEqual(600);
    expect(moved.rows[0].used_s).toBeLessThan(600 + 120);
    const audit = await ctx.api.get(`/api/audit?resourceId=${paused.id}&action=destination.`);
    const actions = audit.events.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === "destination.pause")).toHaveLength(1);
    expect(actions.filter((a: string) => a === "destination.resume")).toHaveLength(1);
    expect((await ctx.api.request("POST", `/api/destinations/00000000-0000-4000-8000-000000000000/pause`, {})).status).toBe(404);
    await ctx.api.request("DELETE", `/api/destinations/${running.id}`);
  });
});
