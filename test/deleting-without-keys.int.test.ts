// Deleting a destination, a source or a message does itself what foreign keys once did (deliveries →
// destinations and deliveries → messages ON DELETE CASCADE, messages → sources ON DELETE SET NULL), and
// the worker drops deliveries committed for a destination or a message deleted meanwhile
// (docs/architecture.md#foreign-keys-on-the-hot-path).
// Real app, real worker, real pg-boss, a real receiver on 127.0.0.1.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeliveries } from "../lib/delivery/enqueue";
import { pruneExpiredData } from "../lib/maintenance/retention";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { seedMessages } from "./harness/delivery/seed";

let ctx: DeliveryContext;
let db: pg.Pool;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await startDeliveryContext();
  db = new pg.Pool({ connectionString: ctx.stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await db?.end();
  await ctx?.close();
});

const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};
const count = async (sql: string, params: unknown[]) => (await db.query<{ n: number }>(sql, params)).rows[0].n;

describe("deleting a destination", () => {
  it("deletes its deliveries, delivered and pending, in the same transaction; keeps others' and the attempt log", async () => {
    const rx = await receiver();
    const gone = await ctx.destination({ urls: [`${rx.url}/gone`] });
    const kept = await ctx.destination({ urls: [`${rx.url}/kept`] });
    const [delivered] = await ctx.send(gone.id, [{ type: "track", event: "Delivered", userId: "u1" }]);
    await ctx.settled(delivered);
    // Pending: due in an hour, so no worker touches it before the delete.
    const [pending] = await ctx.send(gone.id, [{ type: "track", event: "Pending", userId: "u1" }]);
    await db.query("UPDATE deliveries SET next_attempt_at = now() + interval '1 hour' WHERE message_row_id = $1", [pending]);
    const [other] = await ctx.send(kept.id, [{ type: "track", event: "Other", userId: "u1" }]);
    await ctx.settled(other);
    const attemptsBefore = await count("SELECT count(*)::int AS n FROM attempts WHERE destination_id = $1", [gone.id]);
    expect(attemptsBefore).toBeGreaterThan(0);

    expect((await ctx.api.request("DELETE", `/api/destinations/${gone.id}`)).status).toBe(204);

    expect(await count("SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1", [gone.id])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1", [kept.id])).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM attempts WHERE destination_id = $1", [gone.id])).toBe(attemptsBefore);
    // The message view lists the deliveries that are left.
    expect((await ctx.api.get(`/api/messages/${pending}`)).deliveries).toEqual([]);
  });

  it("the worker drops, unsent and without retrying, a delivery an ingest committed after the destination was deleted", async () => {
    const rx = await receiver();
    const gone = await ctx.destination({ urls: [`${rx.url}/gone`] });
    const live = await ctx.destination({ urls: [`${rx.url}/live`] });
    expect((await ctx.api.request("DELETE", `/api/destinations/${gone.id}`)).status).toBe(204);
    // The race: routing read the source's destinations before the delete; its deliveries and deliver
    // jobs commit after it (createDeliveries, as ingest does), for the gone destination and a live one.
    const { rowIds, deliveryIds } = await seedMessages(ctx.stack.databaseUrl, {
      workspaceId: ctx.api.workspaceId!,
      sourceId: ctx.sourceId,
      destinationIds: [gone.id, live.id],
      messages: [{ type: "track", event: "Raced", userId: "u2" }],
    });
    // Both were committed, the orphan included (the worker may drop it before this line runs).
    expect(deliveryIds).toHaveLength(2);

    await waitFor(async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1", [gone.id])) === 0, {
      timeoutMs: 30_000,
      what: "the orphan delivery to be dropped",
    });
    const detail = await ctx.settled(rowIds[0]);
    expect(detail.deliveries.map((d: { destinationId: string; state: string }) => [d.destinationId, d.state])).toEqual([
      [live.id, "delivered"],
    ]);
    expect(rx.requests.map((r) => r.path)).toEqual(["/live"]);
    const orphan = deliveryIds.find((id) => id !== detail.deliveries[0].id);
    expect(orphan).toBeDefined();
    // No job is left to retry it, and no attempt was logged for it.
    await waitFor(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name IN ('deliver', 'deliver-retry') AND data->'deliveryIds' ? $1 AND state NOT IN ('completed', 'cancelled')`,
          [orphan],
        )) === 0,
      { timeoutMs: 30_000, what: "the orphan's job to complete" },
    );
    expect(await count("SELECT count(*)::int AS n FROM attempts WHERE delivery_id = $1", [orphan])).toBe(0);
  });
});

describe("deleting a source", () => {
  it("keeps its messages with source_id null, and the request log still shows them", async () => {
    const rx = await receiver();
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const source = await ctx.api.post("/api/sources", { name: "Doomed" });
    const { rowIds } = await seedMessages(ctx.stack.databaseUrl, {
      workspaceId: ctx.api.workspaceId!,
      sourceId: source.id,
      destinationIds: [dest.id],
      messages: [
        { type: "track", event: "A", userId: "u3" },
        { type: "identify", userId: "u3" },
      ],
    });
    await ctx.settled(rowIds[0]);
    await ctx.settled(rowIds[1]);

    expect((await ctx.api.request("DELETE", `/api/sources/${source.id}`)).status).toBe(204);

    const { rows } = await db.query<{ source_id: string | null }>("SELECT source_id FROM messages WHERE id = ANY($1::uuid[])", [rowIds]);
    expect(rows).toEqual([{ source_id: null }, { source_id: null }]);
    const detail = await ctx.api.get(`/api/messages/${rowIds[0]}`);
    expect(detail.message.sourceId).toBeNull();
    expect(detail.deliveries.map((d: { state: string }) => d.state)).toEqual(["delivered"]);
  });

  it("a message an ingest committed after the delete, naming the gone source, breaks neither the log, the debugger nor retention", async () => {
    const rx = await receiver();
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const source = await ctx.api.post("/api/sources", { name: "Raced" });
    expect((await ctx.api.request("DELETE", `/api/sources/${source.id}`)).status).toBe(204);
    const { rowIds } = await seedMessages(ctx.stack.databaseUrl, {
      workspaceId: ctx.api.workspaceId!,
      sourceId: source.id,
      destinationIds: [dest.id],
      messages: [{ type: "track", event: "Late", userId: "u4" }],
    });
    const detail = await ctx.settled(rowIds[0]);
    expect(detail.message.sourceId).toBe(source.id);
    expect(detail.deliveries.map((d: { state: string }) => d.state)).toEqual(["delivered"]);
    const log = await ctx.api.get(`/api/attempts?messageId=${detail.message.messageId}`);
    expect(log.attempts.length).toBe(1);
    // The debugger of a deleted source is a 404, as before; another source's debugger is unaffected.
    expect((await ctx.api.request("GET", `/api/sources/${source.id}/events`)).status).toBe(404);
    expect((await ctx.api.request("GET", `/api/sources/${ctx.sourceId}/events`)).status).toBe(200);

    await db.query("UPDATE messages SET received_at = now() - interval '40 days' WHERE id = $1", [rowIds[0]]);
    await pruneExpiredData({ days: { messages: 30, attempts: 3650, captures: 7 } });
    expect(await count("SELECT count(*)::int AS n FROM messages WHERE id = $1", [rowIds[0]])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM deliveries WHERE message_row_id = $1", [rowIds[0]])).toBe(0);
  });
});

describe("deleting messages (retention)", () => {
  const prune = () => pruneExpiredData({ days: { messages: 30, attempts: 3650, captures: 7 } });

  it("deletes an expired message's deliveries, its replays' included, in the same statement; keeps others' and the attempt log", async () => {
    const rx = await receiver();
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [old, young] = await ctx.send(dest.id, [
      { type: "track", event: "Old", userId: "u5" },
      { type: "track", event: "Young", userId: "u5" },
    ]);
    await ctx.settled(old);
    await ctx.settled(young);
    // A replay of the old message makes a second delivery of it (replay_number 1).
    expect((await ctx.api.post("/api/messages/replay", { ids: [old], includeDelivered: true })).replayed).toBe(1);
    expect((await ctx.settled(old)).deliveries).toHaveLength(2);
    const attemptsBefore = await count("SELECT count(*)::int AS n FROM attempts WHERE message_row_id = $1", [old]);
    expect(attemptsBefore).toBe(2);

    await db.query("UPDATE messages SET received_at = now() - interval '40 days' WHERE id = $1", [old]);
    expect((await prune()).messages).toBeGreaterThanOrEqual(1);

    expect(await count("SELECT count(*)::int AS n FROM messages WHERE id = $1", [old])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM deliveries WHERE message_row_id = $1", [old])).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM deliveries WHERE message_row_id = $1", [young])).toBe(1);
    // The attempt log has its own retention.
    expect(await count("SELECT count(*)::int AS n FROM attempts WHERE message_row_id = $1", [old])).toBe(attemptsBefore);
  });

  it("the worker drops, unsent and without retrying, a delivery a replay committed after retention deleted its message", async () => {
    const rx = await receiver();
    const dest = await ctx.destination({ urls: [`${rx.url}/hook`] });
    const [gone] = await ctx.send(dest.id, [{ type: "track", event: "Expired", userId: "u6" }]);
    const [original] = (await ctx.settled(gone)).deliveries;
    await db.query("UPDATE messages SET received_at = now() - interval '40 days' WHERE id = $1", [gone]);
    await prune();
    expect(await count("SELECT count(*)::int AS n FROM messages WHERE id = $1", [gone])).toBe(0);

    // The race: a replay read the message's delivery before retention ran, and commits its new
    // delivery and deliver job after it, as replayMessages does.
    const client = await db.connect();
    let replayId: string;
    try {
      await client.query("BEGIN");
      [replayId] = await createDeliveries(client, [{ workspaceId: ctx.api.workspaceId!, messageRowId: gone, destinationId: dest.id }]);
      await client.query("UPDATE deliveries SET replay_of = $2, replay_number = 1 WHERE id = $1", [replayId, original.id]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    expect(replayId).toBeDefined();

    await waitFor(async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE id = $1", [replayId])) === 0, {
      timeoutMs: 30_000,
      what: "the delivery without a message to be dropped",
    });
    // Its job ends completed, not retried: the worker deletes the row, then completes the job, so the
    // job may still be active for a moment after the row is gone (a job left to retry never gets here).
    await waitFor(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'deliver' AND data->'deliveryIds' ? $1 AND state NOT IN ('completed', 'cancelled')`,
          [replayId],
        )) === 0,
      { timeoutMs: 30_000, what: "the replay's job to complete" },
    );
    expect(await count("SELECT count(*)::int AS n FROM attempts WHERE delivery_id = $1", [replayId])).toBe(0);
    // Only the original delivery reached the receiver.
    expect(rx.requests).toHaveLength(1);
  });
});
