// Messages that come in through the Tracking API (/v1) reach the Webhooks destination exactly as
// docs/webhooks.md#payloads says, byte for byte, signed; routing follows `integrations` (docs/routing.md).
// Nested customer objects keep the client's key order (issue 13.11, docs/tracking-api.md#fidelity):
// the expected bodies below are written in the order the client sent, which jsonb would have sorted.
import crypto from "node:crypto";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";

let ctx: DeliveryContext;
let writeKey: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await startDeliveryContext();
  writeKey = (await ctx.api.get(`/api/sources/${ctx.sourceId}`)).writeKey;
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await ctx?.close();
});

async function track(path: string, body: object): Promise<void> {
  const res = await fetch(`${ctx.stack.app.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}` },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect((await res.json()).rejected).toBeUndefined();
}

describe("through the Tracking API", () => {
  it("delivers each payload shape (docs/webhooks.md#payloads) byte for byte, verifiable the seed's way and with standardwebhooks", async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`], sharedSecret: "üñí-secret 🔑", standardWebhooks: true });
    const ts = "2026-11-21T15:05:50+0000"; // analytics-go's format
    const iso = "2026-11-21T15:05:50.000Z";
    const device = {
      device: { model: "iPhone15,2", type: "ios" },
      os: { name: "iOS", version: "17.5" },
      app: { build: "412", name: "Acme", version: "3.8.0" },
    };
    const props = {
      title: "Ünïcödé — 東京 🚀",
      price: 0.1 + 0.2,
      // biome-ignore lint/correctness/noPrecisionLoss: on purpose, see the assertion on its digits
      big: 12345678901234567890,
      neg: -42.5e-3,
      nested: { list: [1, 2.5, "x"], ok: true, zeta: { z: 1, a: 2 }, alpha: [{ b: 1, a: 2 }] },
    };
    await track("/v1/batch", {
      batch: [
        {
          type: "page",
          messageId: "tp-page",
          userId: "u1",
          anonymousId: "a1",
          name: "Pricing",
          category: "Docs",
          properties: { path: "/pricing", referrer: "https://google.com/", title: "Pricing", url: "https://acme.example/pricing" },
          timestamp: ts,
        },
        { type: "screen", messageId: "tp-screen", userId: "u1", name: "Checkout", context: device, timestamp: ts },
        { type: "identify", messageId: "tp-identify", userId: "u1", traits: { email: "zoë@example.com", plan: "pro" }, timestamp: ts },
        { type: "track", messageId: "tp-track", userId: "u1", event: "Order Completed", properties: props, timestamp: ts },
        { type: "alias", messageId: "tp-alias", userId: "u1", previousId: "a1", timestamp: ts },
        { type: "group", messageId: "tp-group", userId: "u1", groupId: "acme", traits: { name: "Acme", employees: 420 }, timestamp: ts },
      ],
    });
    await track("/v1/track", { messageId: "tp-single", userId: "u2", event: "Signed Up", properties: { plan: "free" }, timestamp: ts });
    await waitFor(async () => rx.requests.length >= 7, { what: "7 deliveries" });

    const got = new Map(rx.requests.map((r) => [JSON.parse(r.body).messageId as string, r]));
    const body = (id: string) => got.get(id)!.body;
    const receivedAt = (id: string) => JSON.parse(body(id)).receivedAt as string;
    expect(receivedAt("tp-page")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const expected: Record<string, object> = {
      "tp-page": {
        version: 1,
        type: "page",
        userId: "u1",
        name: "Pricing",
        category: "Docs",
        properties: {
          path: "/pricing",
          referrer: "https://google.com/",
          title: "Pricing",
          url: "https://acme.example/pricing",
        },
        timestamp: iso,
        context: {},
        messageId: "tp-page",
        anonymousId: "a1",
        receivedAt: receivedAt("tp-page"),
      },
      "tp-screen": {
        version: 1,
        type: "screen",
        userId: "u1",
        name: "Checkout",
        timestamp: iso,
        context: device,
        messageId: "tp-screen",
        receivedAt: receivedAt("tp-screen"),
      },
      "tp-identify": {
        version: 1,
        type: "identify",
        userId: "u1",
        traits: { email: "zoë@example.com", plan: "pro" },
        timestamp: iso,
        context: {},
        messageId: "tp-identify",
        receivedAt: receivedAt("tp-identify"),
      },
      "tp-track": {
        version: 1,
        type: "track",
        userId: "u1",
        event: "Order Completed",
        properties: props,
        timestamp: iso,
        context: {},
        messageId: "tp-track",
        receivedAt: receivedAt("tp-track"),
      },
      "tp-alias": {
        version: 1,
        type: "alias",
        "Previous ID": "a1",
        "User ID": "u1",
        timestamp: iso,
        context: {},
        messageId: "tp-alias",
        receivedAt: receivedAt("tp-alias"),
      },
      "tp-group": {
        version: 1,
        type: "group",
        groupId: "acme",
        userId: "u1",
        traits: { name: "Acme", employees: 420 },
        timestamp: iso,
        context: {},
        messageId: "tp-group",
        receivedAt: receivedAt("tp-group"),
      },
      "tp-single": {
        version: 1,
        type: "track",
        userId: "u2",
        event: "Signed Up",
        properties: { plan: "free" },
        timestamp: iso,
        context: {},
        messageId: "tp-single",
        receivedAt: receivedAt("tp-single"),
      },
    };
    for (const [id, shape] of Object.entries(expected)) expect(body(id), id).toBe(JSON.stringify(shape));

    const { value: standardSecret } = await ctx.api.post(`/api/destinations/${dest.id}/reveal`, { secret: "standardSecret" });
    const wh = new Webhook(standardSecret as string);
    for (const r of rx.requests) {
      const seedWay = crypto
        .createHmac("sha1", "üñí-secret 🔑")
        .update(JSON.stringify(JSON.parse(r.body)), "utf8")
        .digest("hex");
      expect(r.headers["x-signature"]).toBe(seedWay);
      expect(wh.verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      // The message's row id (docs/signing.md#standard-webhooks), not the client's messageId.
      expect(r.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(rx.requests.length);
  });

  it("routes by integrations, connection and enabled", async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    const other = await startReceiver();
    receivers.push(other);
    const connected = await ctx.destination({ urls: [`${rx.url}/hook`] });
    await ctx.api.post("/api/destinations", { name: "not connected", urls: [`${other.url}/hook`], sourceIds: [] });
    await ctx.destination({ name: "disabled", urls: [`${other.url}/hook`], enabled: false });
    const cases: [string, object | undefined, boolean][] = [
      ["rt-none", undefined, true],
      ["rt-webhooks-true", { Webhooks: true }, true],
      ["rt-webhooks-false", { Webhooks: false }, false],
      ["rt-all-false", { All: false }, false],
      ["rt-all-false-webhooks-true", { All: false, Webhooks: true }, true],
      ["rt-lowercase", { All: false, webhooks: true }, false],
      ["rt-webhooks-options", { Webhooks: { anything: 1 } }, true],
    ];
    await track("/v1/batch", {
      batch: cases.map(([messageId, integrations]) => ({
        type: "track",
        event: "R",
        userId: "u",
        messageId,
        ...(integrations ? { integrations } : {}),
      })),
    });
    const wanted = cases.filter((c) => c[2]).map((c) => c[0]);
    await waitFor(async () => rx.requests.length >= wanted.length, { what: "routed deliveries" });

    // Routing is decided at ingest: blocked messages have no delivery at all, so nothing can send them later.
    const client = new pg.Client({ connectionString: ctx.stack.databaseUrl });
    await client.connect();
    const { rows } = await client.query(
      `SELECT m.message_id, d.destination_id FROM messages m LEFT JOIN deliveries d ON d.message_row_id = m.id WHERE m.message_id LIKE 'rt-%' ORDER BY m.message_id`,
    );
    await client.end();
    const routed = rows
      .filter((r) => r.destination_id === connected.id)
      .map((r) => r.message_id)
      .sort();
    expect(routed).toEqual([...wanted].sort());
    // Blocked messages have no delivery to any destination (the first test's one is connected too).
    const blocked = cases.filter((c) => !c[2]).map((c) => c[0]);
    expect(rows.filter((r) => blocked.includes(r.message_id)).every((r) => r.destination_id === null)).toBe(true);
    expect(rx.requests.map((r) => JSON.parse(r.body).messageId).sort()).toEqual([...wanted].sort());
    expect(other.requests).toHaveLength(0);
  });
  it("keeps the first copy of a messageId repeated inside one batch, and delivers only that one (docs/tracking-api.md#message-ids)", async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    await ctx.destination({ urls: [`${rx.url}/dupes`] });
    const copy = (n: number, event: string) => ({
      type: "track",
      userId: "u-dup",
      event,
      messageId: "dup-in-batch",
      properties: { copy: n },
    });
    await track("/v1/batch", {
      batch: [
        copy(1, "First"),
        { type: "track", userId: "u-dup", event: "Between", messageId: "dup-between" },
        copy(2, "Second"),
        copy(3, "Third"),
      ],
    });

    const client = new pg.Client({ connectionString: ctx.stack.databaseUrl });
    await client.connect();
    const { rows } = await client
      .query(`SELECT id, payload FROM messages WHERE source_id = $1 AND message_id = 'dup-in-batch'`, [ctx.sourceId])
      .finally(() => client.end());
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toMatchObject({ event: "First", properties: { copy: 1 } });

    // Its one delivery has ended, and the message sent between the copies has arrived too.
    const detail = await ctx.settled(rows[0].id);
    expect(detail.deliveries.map((d: { state: string }) => d.state)).toEqual(expect.arrayContaining(["delivered"]));
    await waitFor(async () => rx.requests.some((r) => JSON.parse(r.body).messageId === "dup-between"), { what: "the other message" });
    const copies = rx.requests.map((r) => JSON.parse(r.body)).filter((b) => b.messageId === "dup-in-batch");
    expect(copies.map((b) => [b.event, b.properties])).toEqual([["First", { copy: 1 }]]);
  });
});
