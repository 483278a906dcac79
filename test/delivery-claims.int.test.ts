// One send per round (lib/delivery/claims.ts, docs/webhooks.md#one-send-per-round): a delivery queued
// again while an earlier job of it may still be queued (a resumed destination) is sent by whichever
// job claims its round, never by two. Real Postgres, pg-boss, worker and a loopback receiver; the
// contending jobs are the stack's worker and processDeliveryBatch called here, as a second worker.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processDeliveryBatch } from "../lib/delivery/process";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";

let ctx: DeliveryContext;
let rx: Receiver;
let db: pg.Client;

beforeAll(async () => {
  process.env.EVENTRAIL_ALLOW_PRIVATE_NETWORKS = "1";
  ctx = await startDeliveryContext();
  // Slow enough that every contender has loaded the delivery before any records its round.
  rx = await startReceiver(() => ({ status: 200, delayMs: 400 }));
  db = new pg.Client({ connectionString: ctx.stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await rx?.close();
  await ctx?.close();
});

const deliveryOf = async (rowId: string) =>
  (
    await db.query<{ id: string; attempt_count: number; state: string; claimed_until: string | null }>(
      "SELECT id, attempt_count, state, claimed_until::text FROM deliveries WHERE message_row_id = $1",
      [rowId],
    )
  ).rows[0];

describe("one send per round", () => {
  it("a resumed destination's waiting delivery, held by three jobs at once, is sent once", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/resumed`] });
    await ctx.api.post(`/api/destinations/${dest.id}/pause`, {});
    const [rowId] = await ctx.send(dest.id, [{ type: "track", event: "E", userId: "u", messageId: "claim-resume" }]);
    const { id } = await deliveryOf(rowId);
    await ctx.api.post(`/api/destinations/${dest.id}/resume`, {});
    // The resume's own job runs on the stack's worker; two more jobs of the delivery (as one queued
    // before the pause would be) run here at the same time.
    await Promise.all([processDeliveryBatch({ deliveryIds: [id] }), processDeliveryBatch({ deliveryIds: [id] })]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0].state).toBe("delivered");
    expect(detail.attempts).toHaveLength(1);
    expect(rx.requests.filter((r) => r.path === "/resumed")).toHaveLength(1);
  });

  it("a live claim is left to its holder, and its delivery comes back when the claim runs out; an expired one is taken", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/held`] });
    await ctx.api.post(`/api/destinations/${dest.id}/pause`, {});
    const [rowId] = await ctx.send(dest.id, [{ type: "track", event: "E", userId: "u", messageId: "claim-held" }]);
    const { id } = await deliveryOf(rowId);
    // Held by a job that is still sending it (its claim ends in a minute); then unpaused, so that
    // its own job, whenever the worker takes it, meets the claim too.
    await db.query("UPDATE deliveries SET claimed_until = now() + interval '60 seconds' WHERE id = $1", [id]);
    await db.query("UPDATE destinations SET paused_at = NULL WHERE id = $1", [dest.id]);
    const held = await processDeliveryBatch({ deliveryIds: [id] });
    expect(held.attempts).toBe(0);
    expect(rx.requests.filter((r) => r.path === "/held")).toHaveLength(0);
    const { rows: comeback } = await db.query(
      `SELECT start_after > now() + interval '50 seconds' AS later FROM pgboss.job WHERE name = 'deliver-retry' AND data->'deliveryIds' ? $1`,
      [id],
    );
    expect(comeback.length).toBeGreaterThan(0);
    expect(comeback.every((j) => j.later)).toBe(true);
    // Its holder died: once the claim has run out, the next job takes the round and sends it.
    await db.query("UPDATE deliveries SET claimed_until = now() - interval '1 second' WHERE id = $1", [id]);
    // (The worker's own job of it may be the one that takes it: either way it is sent once.)
    await processDeliveryBatch({ deliveryIds: [id] });
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0].state).toBe("delivered");
    expect(detail.attempts).toHaveLength(1);
    expect(rx.requests.filter((r) => r.path === "/held")).toHaveLength(1);
    // Recorded: the claim is let go, the delivery stays contested (each later round is claimed too).
    expect((await deliveryOf(rowId)).claimed_until).toBe("-infinity");
  });

  it("a delivery no one queued twice is never claimed: ingest's deliveries cost no claim", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/plain`] });
    const [rowId] = await ctx.send(dest.id, [{ type: "track", event: "E", userId: "u", messageId: "claim-plain" }]);
    const detail = await ctx.settled(rowId);
    expect(detail.deliveries[0].state).toBe("delivered");
    expect((await deliveryOf(rowId)).claimed_until).toBeNull();
  });
});
