/**
 * The ingest process caches a source and its routing per write key (docs/architecture.md#write-key-cache),
 * and its statement re-checks the cached source in the database: every change made through the
 * Management API takes effect on the very next Tracking API request, cache or not
 * (docs/tracking-api.md#write-key-rotation). Real processes: `next start` for the API, the ingest
 * server for /v1, Postgres. Each test first sends an event to put the key in the ingest process's cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./harness/stack";
import { type IngestStack, startIngestStack } from "./harness/ingest-stack";
import { createSource, deliveriesByMessage, deliveryIdsInJobs, postTracking, storedMessages, type Db } from "./harness/tracking";

let ingestStack: IngestStack;
let ingest: IngestStack["ingest"];
let api: ApiClient;
let db: Db;

beforeAll(async () => {
  ingestStack = await startIngestStack("cache");
  ({ ingest, api, db } = ingestStack);
});
afterAll(() => ingestStack?.stop());

let n = 0;
const track = (writeKey: string, messageId = `m-${++n}`) =>
  postTracking(ingest.url, "/v1/track", { userId: "u1", event: "Signed Up", messageId }, { writeKey });
const batch = (writeKey: string, messages: Record<string, unknown>[]) =>
  postTracking(ingest.url, "/v1/batch", { batch: messages }, { writeKey });
const hook = (name: string, sourceIds: string[]) =>
  api.post<{ id: string }>("/api/destinations", { name, urls: ["http://127.0.0.1:9/hook"], sourceIds });

describe("a cached write key", () => {
  it("is refused at once when rotated, and the new key works", async () => {
    const source = await createSource(api, "rotated");
    expect((await track(source.writeKey)).status).toBe(200);
    const rotated = await api.post<{ writeKey: string }>(`/api/sources/${source.id}/rotate-key`);
    expect((await track(source.writeKey, "after-rotation")).status).toBe(401);
    // A refused single call or a batch of rejected messages stores nothing through the statement: 401 too.
    expect((await postTracking(ingest.url, "/v1/track", { userId: "u1" }, { writeKey: source.writeKey })).status).toBe(401);
    expect((await batch(source.writeKey, [{ type: "track", userId: "u1" }])).status).toBe(401);
    expect((await postTracking(ingest.url, "/v1/track", "{not json", { writeKey: source.writeKey })).status).toBe(401);
    expect((await track(rotated.writeKey, "new-key")).status).toBe(200);
    expect((await storedMessages(db, source.id)).map((m) => m.message_id).sort()).toEqual(["m-1", "new-key"].sort());
  });

  it("is refused at once when its source is disabled or deleted", async () => {
    const source = await createSource(api, "disabled");
    expect((await track(source.writeKey)).status).toBe(200);
    await api.patch(`/api/sources/${source.id}`, { enabled: false });
    const refused = await track(source.writeKey, "while-disabled");
    expect(refused).toMatchObject({ status: 401, body: { error: { code: "unauthorized", message: expect.stringMatching(/disabled/) } } });
    await api.patch(`/api/sources/${source.id}`, { enabled: true });
    expect((await track(source.writeKey, "re-enabled")).status).toBe(200);
    await api.del(`/api/sources/${source.id}`);
    expect((await track(source.writeKey, "after-delete")).status).toBe(401);
    const { rows } = await db.query("SELECT message_id FROM messages WHERE message_id IN ('while-disabled', 'after-delete')");
    expect(rows).toEqual([]);
  });

  it("routes the next event to a destination connected, disabled, re-filtered or disconnected meanwhile", async () => {
    const source = await createSource(api, "routed");
    const first = await hook("first", [source.id]);
    expect((await track(source.writeKey, "r-1")).status).toBe(200);

    const second = await hook("second", [source.id]);
    expect((await track(source.writeKey, "r-2")).status).toBe(200);

    await api.patch(`/api/destinations/${second.id}`, { enabled: false });
    expect((await track(source.writeKey, "r-3")).status).toBe(200);

    await api.patch(`/api/destinations/${second.id}`, { enabled: true });
    await api.patch(`/api/destinations/${first.id}`, {
      filter: { types: ["identify"], events: { mode: "all", names: [] } },
    });
    expect((await track(source.writeKey, "r-4")).status).toBe(200);

    await api.patch(`/api/destinations/${second.id}`, { sourceIds: [] });
    expect((await track(source.writeKey, "r-5")).status).toBe(200);

    await api.patch(`/api/destinations/${second.id}`, { sourceIds: [source.id] });
    await api.patch(`/api/destinations/${first.id}`, { filter: null });
    expect((await track(source.writeKey, "r-6")).status).toBe(200);
    // Deleting a destination deletes its deliveries: what the earlier events got is read before.
    const byMessage = await deliveriesByMessage(db, source.id);
    await api.del(`/api/destinations/${second.id}`);
    expect((await track(source.writeKey, "r-7")).status).toBe(200);
    byMessage.set("r-7", (await deliveriesByMessage(db, source.id)).get("r-7") ?? []);
    const to = (id: string) => [...(byMessage.get(id) ?? [])].sort();
    expect(to("r-1")).toEqual([first.id]);
    expect(to("r-2")).toEqual([first.id, second.id].sort());
    expect(to("r-3")).toEqual([first.id]);
    expect(to("r-4")).toEqual([second.id]);
    expect(to("r-5")).toEqual([]);
    expect(to("r-6")).toEqual([first.id, second.id].sort());
    expect(to("r-7")).toEqual([first.id]);
    // Each delivery made is in a job, as always.
    const inJobs = await deliveryIdsInJobs(db);
    const { rows } = await db.query<{ id: string }>(
      "SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_row_id WHERE m.source_id = $1",
      [source.id],
    );
    for (const r of rows) expect(inJobs.has(r.id)).toBe(true);
  });

  it("keeps exact dedupe when a batch is stored again after its source changed", async () => {
    const source = await createSource(api, "dedupe");
    const dest = await hook("dedupe hook", [source.id]);
    expect((await track(source.writeKey, "d-1")).status).toBe(200);
    await hook("another", [source.id]);
    const messages = ["d-1", "d-2", "d-2"].map((messageId) => ({ type: "track", userId: "u1", event: "E", messageId }));
    expect((await batch(source.writeKey, messages)).status).toBe(200);
    expect((await storedMessages(db, source.id)).map((m) => m.message_id).sort()).toEqual(["d-1", "d-2"]);
    expect((await deliveriesByMessage(db, source.id)).get("d-1")).toEqual([dest.id]);
    expect((await deliveriesByMessage(db, source.id)).get("d-2")).toHaveLength(2);
  });
});
