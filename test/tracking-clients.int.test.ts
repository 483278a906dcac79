/**
 * The real npm clients customers already run — @segment/analytics-node 3.x and analytics-node
 * 6.x — pointed at Eventrail's `next start`: what they send is stored exactly and routed.
 */
import { Analytics } from "@segment/analytics-node";
import LegacyAnalytics from "analytics-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type ApiClient, type Stack } from "./harness/stack";
import {
  createDestination,
  createSource,
  deliveriesByMessage,
  deliveryIdsInJobs,
  openDb,
  storedMessages,
  type Db,
  type StoredMessage,
  type TestSource,
} from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let db: Db;
let source: TestSource;
/** Enabled and connected: gets everything the integrations object allows. */
let hook: string;
let disabled: string;
let unconnected: string;

beforeAll(async () => {
  // No worker: deliveries and their jobs stay exactly as ingest made them.
  stack = await startStack({ workers: 0 });
  api = await stack.newWorkspace("clients");
  db = openDb(stack.databaseUrl);
  source = await createSource(api);
  hook = await createDestination(db, { workspaceId: source.workspaceId, name: "hook", sourceIds: [source.id] });
  disabled = await createDestination(db, { workspaceId: source.workspaceId, name: "off", enabled: false, sourceIds: [source.id] });
  unconnected = await createDestination(db, { workspaceId: source.workspaceId, name: "elsewhere" });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const ms = (d: Date | null) => d!.getTime();
const byType = (rows: StoredMessage[]) => Object.fromEntries(rows.map((r) => [r.type, r]));

/** Every stored timestamp is UTC ms and timestamp = receivedAt − (sentAt − originalTimestamp). */
function expectSkewCorrected(row: StoredMessage) {
  expect(row.sent_at).not.toBeNull();
  expect(ms(row.timestamp)).toBe(ms(row.received_at) - (ms(row.sent_at) - ms(row.original_timestamp)));
  for (const key of ["timestamp", "originalTimestamp", "sentAt", "receivedAt"])
    expect(row.payload[key]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(row.payload.timestamp).toBe(row.timestamp.toISOString());
  expect(row.payload.receivedAt).toBe(row.received_at.toISOString());
  expect(row.payload.originalTimestamp).toBe(row.original_timestamp!.toISOString());
}

describe("@segment/analytics-node 3.x", () => {
  it("stores every call type with its fields, timestamps, context and integrations, and routes it", async () => {
    const analytics = new Analytics({ writeKey: source.writeKey, host: stack.app.url, flushAt: 50, flushInterval: 60_000, maxRetries: 0 });
    const errors: unknown[] = [];
    analytics.on("error", (e) => errors.push(e));
    const past = new Date("2024-03-01T12:00:00.000Z");
    analytics.identify({ userId: "seg-user", traits: { email: "a@example.com", plan: "pro" }, context: { ip: "203.0.113.9" } });
    analytics.track({ userId: "seg-user", event: "Order Completed", properties: { total: 30, currency: "EUR" }, timestamp: past });
    analytics.page({
      anonymousId: "seg-anon",
      name: "Pricing",
      category: "Docs",
      properties: { path: "/pricing", url: "https://x.test/pricing" },
    });
    analytics.screen({ userId: "seg-user", name: "Home", properties: { variant: "b" } });
    analytics.group({ userId: "seg-user", groupId: "acme", traits: { name: "Acme Inc" }, integrations: { Webhooks: false } });
    analytics.alias({ userId: "seg-user", previousId: "seg-anon", integrations: { All: false } });
    await analytics.closeAndFlush({ timeout: 30_000 });
    expect(errors).toEqual([]);

    const rows = await storedMessages(db, source.id);
    expect(rows.map((r) => r.type).sort()).toEqual(["alias", "group", "identify", "page", "screen", "track"]);
    const t = byType(rows);
    for (const row of rows) {
      expect(row.origin).toBe("api");
      expect(row.workspace_id).toBe(source.workspaceId);
      expect(row.message_id).toMatch(/^node-next-/);
      expect(row.payload.messageId).toBe(row.message_id);
      expect(row.payload.type).toBe(row.type);
      expect(row.payload.context.library).toEqual({ name: "@segment/analytics-node", version: expect.any(String) });
      expect(row.payload).not.toHaveProperty("_metadata");
      expect(row.payload).not.toHaveProperty("writeKey");
      expectSkewCorrected(row);
    }
    expect(t.identify).toMatchObject({ user_id: "seg-user", anonymous_id: null, event: null });
    expect(t.identify.payload).toMatchObject({
      userId: "seg-user",
      traits: { email: "a@example.com", plan: "pro" },
      context: { ip: "203.0.113.9" },
      integrations: {},
    });
    expect(t.track).toMatchObject({ user_id: "seg-user", event: "Order Completed" });
    expect(t.track.payload).toMatchObject({ event: "Order Completed", properties: { total: 30, currency: "EUR" } });
    // A historical timestamp stays in the past (corrected only by the client's negligible skew).
    expect(t.track.payload.originalTimestamp).toBe(past.toISOString());
    expect(Math.abs(ms(t.track.timestamp) - past.getTime())).toBeLessThan(60_000);
    expect(t.page).toMatchObject({ user_id: null, anonymous_id: "seg-anon" });
    expect(t.page.payload).toMatchObject({
      name: "Pricing",
      category: "Docs",
      properties: { path: "/pricing", url: "https://x.test/pricing" },
    });
    expect(t.screen.payload).toMatchObject({ name: "Home", properties: { variant: "b" } });
    expect(t.group.payload).toMatchObject({ groupId: "acme", traits: { name: "Acme Inc" }, integrations: { Webhooks: false } });
    expect(t.alias.payload).toMatchObject({ userId: "seg-user", previousId: "seg-anon", integrations: { All: false } });

    // Routing: only the enabled, connected destination; not for Webhooks: false or All: false.
    const routed = await deliveriesByMessage(db, source.id);
    for (const type of ["identify", "track", "page", "screen"]) expect(routed.get(t[type].message_id)).toEqual([hook]);
    expect(routed.has(t.group.message_id)).toBe(false);
    expect(routed.has(t.alias.message_id)).toBe(false);
    const all = [...routed.values()].flat();
    expect(all).not.toContain(disabled);
    expect(all).not.toContain(unconnected);
  });

  it("stores batches of hundreds through forced flushes, each message once, each with its deliver job", async () => {
    const batchSource = await createSource(api, "bulk");
    const dest = await createDestination(db, { workspaceId: batchSource.workspaceId, name: "bulk hook", sourceIds: [batchSource.id] });
    const analytics = new Analytics({
      writeKey: batchSource.writeKey,
      host: stack.app.url,
      flushAt: 200,
      flushInterval: 60_000,
      maxRetries: 0,
    });
    const sent: string[] = [];
    for (let i = 0; i < 650; i++) {
      analytics.track({ userId: `bulk-${i % 37}`, event: "Item Viewed", properties: { i } }, (err, ctx) => {
        if (!err && ctx) sent.push(ctx.event.messageId!);
      });
      // A forced flush in the middle: what is queued goes now, in a partial batch.
      if (i === 321) await analytics.flush({ timeout: 30_000 });
    }
    await analytics.closeAndFlush({ timeout: 60_000 });
    expect(sent).toHaveLength(650);

    const rows = await storedMessages(db, batchSource.id);
    expect(rows).toHaveLength(650);
    expect(new Set(rows.map((r) => r.message_id))).toEqual(new Set(sent));
    expect(rows.map((r) => r.payload.properties.i).sort((a, b) => a - b)).toEqual(Array.from({ length: 650 }, (_, i) => i));
    const routed = await deliveriesByMessage(db, batchSource.id);
    expect(routed.size).toBe(650);
    expect([...routed.values()].every((d) => d.length === 1 && d[0] === dest)).toBe(true);
    const { rows: deliveryIds } = await db.query<{ id: string }>("SELECT id FROM deliveries WHERE destination_id = $1", [dest]);
    const jobbed = await deliveryIdsInJobs(db);
    expect(deliveryIds.every((d) => jobbed.has(d.id))).toBe(true);
  });
});

describe("analytics-node 6.x", () => {
  it("stores every call type, coerces numeric ids, drops _metadata and keeps batch timestamps", async () => {
    const legacySource = await createSource(api, "legacy");
    await createDestination(db, { workspaceId: legacySource.workspaceId, name: "legacy hook", sourceIds: [legacySource.id] });
    const analytics = new LegacyAnalytics(legacySource.writeKey, {
      host: stack.app.url,
      flushAt: 10,
      flushInterval: 60_000,
      retryCount: 0,
    });
    const done = (fn: (cb: (err?: Error) => void) => void) =>
      new Promise<void>((resolve, reject) => fn((err) => (err ? reject(err) : resolve())));
    // The first call of analytics-node 6 flushes at once; the others wait for flush().
    const calls = [
      done((cb) => analytics.identify({ userId: 42, traits: { plan: "free" } }, cb)),
      done((cb) =>
        analytics.track(
          { anonymousId: "legacy-anon", event: "Signed Up", properties: { referrer: "ad" }, context: { locale: "de-DE" } },
          cb,
        ),
      ),
      done((cb) => analytics.page({ userId: "legacy", name: "Home", properties: { path: "/" } }, cb)),
      done((cb) => analytics.screen({ userId: "legacy", name: "Settings" }, cb)),
      done((cb) => analytics.group({ userId: "legacy", groupId: 7, traits: { seats: 3 } }, cb)),
      done((cb) => analytics.alias({ userId: "legacy", previousId: "legacy-anon" }, cb)),
      done((cb) => analytics.track({ userId: "legacy", event: "Imported", timestamp: new Date("2019-06-01T08:00:00.000Z") }, cb)),
    ];
    await analytics.flush();
    await Promise.all(calls);

    const rows = await storedMessages(db, legacySource.id);
    expect(rows).toHaveLength(7);
    for (const row of rows) {
      expect(row.message_id).toMatch(/^node-[0-9a-f]{32}-/);
      expect(row.payload.context.library).toEqual({ name: "analytics-node", version: "6.2.0" });
      expect(row.payload).not.toHaveProperty("_metadata");
      expectSkewCorrected(row);
    }
    const find = (type: string, pred: (r: StoredMessage) => boolean = () => true) => rows.find((r) => r.type === type && pred(r))!;
    expect(find("identify")).toMatchObject({ user_id: "42" });
    expect(find("identify").payload.traits).toEqual({ plan: "free" });
    expect(find("track", (r) => r.event === "Signed Up")).toMatchObject({ user_id: null, anonymous_id: "legacy-anon" });
    expect(find("track", (r) => r.event === "Signed Up").payload.context).toMatchObject({
      locale: "de-DE",
      library: { name: "analytics-node" },
    });
    expect(find("group").payload).toMatchObject({ groupId: "7", traits: { seats: 3 } });
    expect(find("alias").payload).toMatchObject({ previousId: "legacy-anon", userId: "legacy" });
    expect(find("track", (r) => r.event === "Imported").payload.originalTimestamp).toBe("2019-06-01T08:00:00.000Z");
    const routed = await deliveriesByMessage(db, legacySource.id);
    expect(routed.size).toBe(7);
  });

  it("re-sending the same batch is acknowledged and not stored or delivered twice", async () => {
    const dupSource = await createSource(api, "dup");
    const dest = await createDestination(db, { workspaceId: dupSource.workspaceId, name: "dup hook", sourceIds: [dupSource.id] });
    const analytics = new LegacyAnalytics(dupSource.writeKey, { host: stack.app.url, flushAt: 10, flushInterval: 60_000, retryCount: 0 });
    const ids = ["dup-1", "dup-2", "dup-3"];
    // Each call's callback comes once its request is answered. analytics-node 6 sends its very first
    // call alone, at once, so flush() does not wait for that one: without the callbacks, the re-sent
    // dup-1 could overtake the first one on a loaded machine and be the copy stored.
    const send = (event: string) =>
      Promise.all(
        ids.map(
          (messageId) =>
            new Promise<void>((resolve, reject) =>
              analytics.track({ userId: "u", event, messageId }, (err?: Error) => (err ? reject(err) : resolve())),
            ),
        ),
      );
    const first = send("Paid");
    await analytics.flush();
    await first;
    const again = send("Paid again");
    await analytics.flush();
    await again;
    const rows = await storedMessages(db, dupSource.id);
    expect(rows.map((r) => r.message_id).sort()).toEqual(ids);
    expect(rows.every((r) => r.event === "Paid")).toBe(true);
    const { rows: deliveries } = await db.query("SELECT 1 FROM deliveries WHERE destination_id = $1", [dest]);
    expect(deliveries).toHaveLength(3);
  });
});
