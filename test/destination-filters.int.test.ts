// Destination filters (docs/routing.md#destination-filters): routing applies them at ingest, so a
// filtered call gets no delivery at all; the Management API validates them, previews them against
// recent traffic, and the test-send says when the filter would drop what it sent.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { postTracking } from "./harness/tracking";

let ctx: DeliveryContext;
let writeKey: string;
let rx: Receiver;

beforeAll(async () => {
  ctx = await startDeliveryContext();
  writeKey = (await ctx.api.get(`/api/sources/${ctx.sourceId}`)).writeKey;
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await ctx?.close();
});

const calls = [
  { type: "track", event: "Order Completed", userId: "u", messageId: "f-order" },
  { type: "track", event: "Heartbeat", userId: "u", messageId: "f-heartbeat" },
  { type: "track", event: "Signed Up", userId: "u", messageId: "f-signup" },
  { type: "identify", userId: "u", traits: { plan: "pro" }, messageId: "f-identify" },
  { type: "page", userId: "u", name: "Home", messageId: "f-page" },
];

describe("destination filters", () => {
  it("route through /v1: a filtered call gets no delivery, the others are delivered", async () => {
    const orders = await ctx.destination({
      name: "orders only",
      urls: [`${rx.url}/orders`],
      filter: { types: ["track"], events: { mode: "include", names: ["Order Completed"] } },
    });
    const quiet = await ctx.destination({
      name: "no heartbeats, no pages",
      urls: [`${rx.url}/quiet`],
      filter: { types: ["track", "identify"], events: { mode: "exclude", names: ["Heartbeat"] } },
    });
    const everything = await ctx.destination({ name: "everything", urls: [`${rx.url}/all`] });
    expect(everything.filter).toEqual({
      types: ["track", "identify", "page", "screen", "group", "alias"],
      events: { mode: "all", names: [] },
      where: null,
      samplePercent: 100,
      drop: [],
      allow: [],
    });

    const res = await postTracking(ctx.stack.app.url, "/v1/batch", { batch: calls }, { writeKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });

    const db = new pg.Client({ connectionString: ctx.stack.databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ message_id: string; destination_id: string }>(
      `SELECT m.message_id, d.destination_id FROM messages m JOIN deliveries d ON d.message_row_id = m.id WHERE m.message_id LIKE 'f-%'`,
    );
    await db.end();
    const routedTo = (id: string) =>
      rows
        .filter((r) => r.destination_id === id)
        .map((r) => r.message_id)
        .sort();
    expect(routedTo(orders.id)).toEqual(["f-order"]);
    expect(routedTo(quiet.id)).toEqual(["f-identify", "f-order", "f-signup"]);
    expect(routedTo(everything.id)).toHaveLength(calls.length);

    await waitFor(async () => rx.requests.length >= 1 + 3 + calls.length, { what: "filtered deliveries" });
    const received = (path: string) =>
      rx.requests
        .filter((r) => r.path === path)
        .map((r) => JSON.parse(r.body).messageId)
        .sort();
    expect(received("/orders")).toEqual(["f-order"]);
    expect(received("/quiet")).toEqual(["f-identify", "f-order", "f-signup"]);
    expect(received("/all")).toHaveLength(calls.length);

    // The preview counts the same recent calls the same way, before anything is saved.
    const preview = await ctx.api.post("/api/destinations/filter-preview", {
      sourceIds: [ctx.sourceId],
      filter: { types: ["track", "identify"], events: { mode: "exclude", names: ["Heartbeat"] } },
    });
    expect(preview).toMatchObject({ considered: calls.length, passed: 3 });
    expect(preview.byType).toEqual(
      expect.arrayContaining([
        { type: "track", considered: 3, passed: 2 },
        { type: "page", considered: 1, passed: 0 },
      ]),
    );
    expect(preview.byEvent).toEqual(expect.arrayContaining([{ event: "Heartbeat", considered: 1, passed: 0 }]));

    // Clearing the filter (null) receives everything again.
    const cleared = await ctx.api.patch(`/api/destinations/${orders.id}`, { filter: null });
    expect(cleared.filter.events.mode).toBe("all");
    expect(cleared.filter.types).toHaveLength(6);
  });

  it("are validated by the API with field errors, and nothing is saved", async () => {
    const before = (await ctx.api.get("/api/destinations")).destinations.length;
    const bad = await ctx.api.request("POST", "/api/destinations", {
      name: "",
      urls: [`${rx.url}/x`],
      filter: { types: ["track"], events: { mode: "include", names: [] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toEqual({ name: ["Enter a name"], "filter.events.names": ["Name at least one track event to include"] });
    const deletes = await ctx.api.request("POST", "/api/destinations", {
      name: "bad filter",
      urls: [`${rx.url}/x`],
      filter: { types: ["track", "delete"], events: { mode: "all" } },
    });
    expect(Object.keys(deletes.body.error.fields)).toEqual(["filter.types.1"]);
    const none = await ctx.api.request("POST", "/api/destinations", {
      name: "bad filter",
      urls: [`${rx.url}/x`],
      filter: { types: [], events: { mode: "all" } },
    });
    expect(none.body.error.fields).toEqual({
      "filter.types": ["Choose at least one call type: with none, the destination would receive nothing"],
    });
    expect((await ctx.api.get("/api/destinations")).destinations.length).toBe(before);

    const dest = await ctx.destination({ name: "patched", urls: [`${rx.url}/x`] });
    const patch = await ctx.api.request("PATCH", `/api/destinations/${dest.id}`, {
      filter: { types: ["track"], events: { mode: "exclude", names: ["x".repeat(201)] } },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.error.fields).toEqual({ "filter.events.names.0": ["At most 200 characters"] });
    expect((await ctx.api.get(`/api/destinations/${dest.id}`)).filter.events.mode).toBe("all");

    const preview = await ctx.api.request("POST", "/api/destinations/filter-preview", {
      sourceIds: ["00000000-0000-4000-8000-000000000000"],
      filter: { types: ["track"], events: { mode: "all" } },
    });
    expect(preview.status).toBe(422);
    expect(preview.body.error.fields).toEqual({ "sourceIds.0": ["No such source in this workspace"] });
  });

  it("make the test-send say when the filter would drop what it sent (it is sent all the same)", async () => {
    const dest = await ctx.destination({
      name: "tested",
      urls: [`${rx.url}/tested`],
      filter: { types: ["track", "identify"], events: { mode: "exclude", names: ["Heartbeat"] } },
    });
    const dropped = await ctx.api.post(`/api/destinations/${dest.id}/test`, { type: "track", payload: { event: "Heartbeat" } });
    expect(dropped.filter).toEqual({ passes: false, reason: 'The filter excludes track events named "Heartbeat"' });
    expect(dropped.attempts).toHaveLength(1);
    expect(dropped.attempts[0].outcome).toBe("success");
    const page = await ctx.api.post(`/api/destinations/${dest.id}/test`, { type: "page" });
    expect(page.filter).toEqual({ passes: false, reason: "The filter does not include page calls" });
    const passes = await ctx.api.post(`/api/destinations/${dest.id}/test`, { type: "track", payload: { event: "Signed Up" } });
    expect(passes.filter).toEqual({ passes: true, reason: null });
  });
});
