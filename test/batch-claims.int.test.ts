// Exactly one send per batch round (docs/request-shape.md#batching): whichever of a batch's lead's
// jobs comes first (the one enqueued when the batch filled, its close-time job, a crashed worker's
// re-run) claims the round, and every other one finds it claimed and sends nothing. Against a real
// Postgres, pg-boss and a loopback receiver; the engine runs in this process, two calls at once
// standing for two workers taking the lead's jobs at the same moment; then two worker processes take
// a stream whose batches fill about when their close time comes.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./harness/pg";
import { startReceiver, type Receiver, type Reply } from "./harness/delivery/receiver";
import { insertDestination, insertWorkspace } from "./harness/delivery/direct";
import { seedMessages } from "./harness/delivery/seed";
import { startWorker, waitFor, type Proc } from "./harness/stack";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let client: pg.Pool;
let workspaceId: string;
let lib: {
  process: typeof import("../lib/delivery/process");
  batches: typeof import("../lib/delivery/batches");
  runtime: typeof import("../lib/platform/runtime");
};
const receivers: Receiver[] = [];
const procs: Proc[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // read once by lib/platform/env on first use, below
  process.env.DATABASE_URL = db.url;
  process.env.EVENTRAIL_ALLOW_PRIVATE_NETWORKS = "1";
  process.env.EVENTRAIL_RETRY_BASE_MS = "200";
  lib = {
    process: await import("../lib/delivery/process"),
    batches: await import("../lib/delivery/batches"),
    runtime: await import("../lib/platform/runtime"),
  };
  client = new pg.Pool({ connectionString: db.url, max: 4 });
  workspaceId = await insertWorkspace(db.url);
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await lib?.runtime.closeRuntime();
  await client?.end();
  await Promise.all(receivers.map((r) => r.close()));
  await db?.drop();
});

/** A receiver answering after `delayMs`: long enough for every racing job to load the lead while the first request is in flight. */
async function slowReceiver(delayMs: number, status = 200): Promise<Receiver> {
  const r = await startReceiver((): Reply => ({ status, body: "ok", delayMs }));
  receivers.push(r);
  return r;
}

async function batchingDestination(url: string, batch: { size: number; maxWaitMs: number }): Promise<string> {
  const id = await insertDestination(db.url, { workspaceId, urls: [url] });
  await client.query("UPDATE destinations SET batch = $2::jsonb WHERE id = $1", [id, JSON.stringify(batch)]);
  return id;
}

const tracks = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ type: "track", messageId: `${prefix}-${i}`, userId: `u${i}`, event: "Order Completed" }));

/** Runs deliver jobs' ids as the worker's handler does (worker/deliver.ts), waiting for every round. */
const deliver = (deliveryIds: string[]) => lib.process.processDeliveryBatch({ deliveryIds, waitForAll: true });

async function batchOf(destinationId: string): Promise<{ id: string; lead: string; state: string }> {
  const { rows } = await client.query<{ id: string; lead: string; state: string }>(
    "SELECT id, lead_delivery_id AS lead, state FROM delivery_batches WHERE destination_id = $1",
    [destinationId],
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

const attemptsOf = async (batchId: string) =>
  (
    await client.query<{ attempt_number: number; n: number }>(
      "SELECT attempt_number, count(*)::int AS n FROM attempts WHERE batch_id = $1 GROUP BY attempt_number ORDER BY attempt_number",
      [batchId],
    )
  ).rows;

describe("one send per batch round", () => {
  it("a batch that fills while its close-time job comes due is sent once: the fill's job and the timer's race, one claims", async () => {
    const rx = await slowReceiver(300);
    const dest = await batchingDestination(`${rx.url}/fill`, { size: 4, maxWaitMs: 30_000 });
    const first = await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(2, "fill-a") });
    // The first two join: the batch opens, its close-time job is enqueued for its lead.
    await deliver(first.deliveryIds);
    const open = await batchOf(dest);
    expect(open.state).toBe("open");
    // Two more fill it: the join closes it and enqueues its lead's job now, while the close-time job stays scheduled.
    const rest = await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(2, "fill-b") });
    await deliver(rest.deliveryIds);
    expect((await batchOf(dest)).state).toBe("closed");
    expect(rx.requests).toHaveLength(0);
    // The lead's job from the fill and its close-time job run at once, on two connections (two workers).
    await Promise.all([deliver([open.lead]), deliver([open.lead])]);

    expect(rx.requests).toHaveLength(1);
    expect(JSON.parse(rx.requests[0].body)).toHaveLength(4);
    expect(await attemptsOf(open.id)).toEqual([{ attempt_number: 1, n: 1 }]);
    const { rows } = await client.query("SELECT state, count(*)::int AS n FROM deliveries WHERE destination_id = $1 GROUP BY state", [
      dest,
    ]);
    expect(rows).toEqual([{ state: "delivered", n: 4 }]);
  });

  it("an open batch's close-time job racing a re-run of it (a restarted worker): one request, one attempt", async () => {
    const rx = await slowReceiver(300);
    const dest = await batchingDestination(`${rx.url}/timer`, { size: 10, maxWaitMs: 30_000 });
    const seeded = await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(3, "timer") });
    await deliver(seeded.deliveryIds);
    const open = await batchOf(dest);
    expect(open.state).toBe("open");
    await Promise.all([deliver([open.lead]), deliver([open.lead]), deliver([open.lead])]);

    expect(rx.requests).toHaveLength(1);
    expect(JSON.parse(rx.requests[0].body)).toHaveLength(3);
    expect(await attemptsOf(open.id)).toEqual([{ attempt_number: 1, n: 1 }]);
  });

  it("a retried batch: each round is claimed once, and a job that loaded the lead before a round was recorded sends nothing", async () => {
    // The first answer fails, the second succeeds: two rounds, each one request.
    let calls = 0;
    const rx = await startReceiver((): Reply => ({ status: calls++ === 0 ? 503 : 200, body: "ok", delayMs: 200 }));
    receivers.push(rx);
    const dest = await batchingDestination(`${rx.url}/retry`, { size: 2, maxWaitMs: 30_000 });
    const seeded = await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(2, "retry") });
    // Two that fill a batch at once: built and sent by the round that joined them.
    await deliver(seeded.deliveryIds);
    const batch = await batchOf(dest);
    expect(rx.requests).toHaveLength(1);
    await waitFor(
      async () => {
        const { rows } = await client.query<{ due: boolean }>("SELECT next_attempt_at <= now() AS due FROM deliveries WHERE id = $1", [
          batch.lead,
        ]);
        return rows[0].due;
      },
      { what: "the batch's retry to come due" },
    );
    // Its retry job and a duplicate of it at once: round 2 goes once.
    await Promise.all([deliver([batch.lead]), deliver([batch.lead])]);
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1].body).toBe(rx.requests[0].body);
    expect(await attemptsOf(batch.id)).toEqual([
      { attempt_number: 1, n: 1 },
      { attempt_number: 2, n: 1 },
    ]);
    // Delivered: a late job finds nothing to send.
    await deliver([batch.lead]);
    expect(rx.requests).toHaveLength(2);
  });

  it("a claim whose worker died: the lead's next job sends nothing while it holds, comes back when it ends, and then sends once", async () => {
    const rx = await slowReceiver(0);
    const dest = await batchingDestination(`${rx.url}/crash`, { size: 10, maxWaitMs: 30_000 });
    const seeded = await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(2, "crash") });
    await deliver(seeded.deliveryIds);
    const open = await batchOf(dest);
    // A worker claims the round (its close time came) and dies before sending: the claim statement alone.
    const claim = await client.query(lib.batches.CLAIM_SQL, [`{${open.id}}`, `{${open.lead}}`, "{0}"]);
    expect(claim.rowCount).toBe(1);
    const { rows: held } = await client.query<{ until: Date }>("SELECT claimed_until AS until FROM delivery_batches WHERE id = $1", [
      open.id,
    ]);
    expect(held[0].until.getTime() - Date.now()).toBeGreaterThan((lib.batches.CLAIM_S - 5) * 1000);

    // pg-boss re-runs the dead worker's job: the round is claimed, so it sends nothing, and the lead gets a job for when the claim ends.
    await deliver([open.lead]);
    expect(rx.requests).toHaveLength(0);
    const { rows: jobs } = await client.query<{ start_after: Date }>(
      "SELECT start_after FROM pgboss.job WHERE name = 'deliver-retry' AND data->'deliveryIds' ? $1 AND start_after > now()",
      [open.lead],
    );
    // (the other one there is the batch's close time)
    expect(jobs.map((j) => j.start_after.getTime())).toContain(held[0].until.getTime());

    // The claim's 30 s pass (its end moved to now rather than waited for): that job sends the batch, once.
    await client.query("UPDATE delivery_batches SET claimed_until = now() WHERE id = $1", [open.id]);
    await Promise.all([deliver([open.lead]), deliver([open.lead])]);
    expect(rx.requests).toHaveLength(1);
    expect(JSON.parse(rx.requests[0].body)).toHaveLength(2);
    expect(await attemptsOf(open.id)).toEqual([{ attempt_number: 1, n: 1 }]);
  });
});

describe("two workers", () => {
  it("a stream whose batches fill around their close time, taken by two workers: every batch and every event received once", async () => {
    // A receiver slow enough that a batch's fill job and its close-time job are both in flight at once.
    const rx = await slowReceiver(150);
    const dest = await batchingDestination(`${rx.url}/stream`, { size: 4, maxWaitMs: 300 });
    const env = { EVENTRAIL_RETRY_BASE_MS: "200" };
    procs.push(await startWorker(db.url, env), await startWorker(db.url, env));
    // 40 sends of 1–3 events, one every ~100 ms (traffic's pace, not a wait): most batches fill in about their 300 ms.
    let n = 0;
    for (let i = 0; i < 40; i++) {
      const k = 1 + (i % 3);
      await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(k, `stream-${i}`) });
      n += k;
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitFor(
      async () => {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND state = 'delivered'",
          [dest],
        );
        return rows[0].n === n;
      },
      { timeoutMs: 60_000, what: `${n} deliveries delivered` },
    );
    // Before one claim decided, 14 of 35 requests here were a batch sent a second time.
    const ids = rx.requests.map((r) => r.headers["webhook-id"] ?? r.body);
    expect(new Set(ids).size).toBe(ids.length);
    const events = rx.requests.flatMap((r) => (JSON.parse(r.body) as { messageId: string }[]).map((e) => e.messageId));
    expect(events).toHaveLength(n);
    expect(new Set(events).size).toBe(n);
    const { rows: twice } = await client.query(
      "SELECT a.batch_id, a.attempt_number FROM attempts a WHERE a.destination_id = $1 GROUP BY 1, 2 HAVING count(*) > 1",
      [dest],
    );
    expect(twice).toEqual([]);
  });

  it("a worker killed while its batch's request is in flight: no other job sends the round while its claim holds; then one does, once", async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    // The first request never gets an answer; later ones do.
    const rx = await startReceiver((_req, i): Reply => (i === 0 ? "hang" : { status: 200, body: "ok" }));
    receivers.push(rx);
    const dest = await batchingDestination(`${rx.url}/killed`, { size: 2, maxWaitMs: 30_000 });
    const env = { EVENTRAIL_RETRY_BASE_MS: "200" };
    const first = await startWorker(db.url, env);
    procs.push(first);
    await seedMessages(db.url, { workspaceId, destinationIds: [dest], messages: tracks(2, "killed") });
    await waitFor(async () => rx.requests.length === 1, { what: "the batch's first request" });
    await first.kill("SIGKILL");
    procs.push(await startWorker(db.url, env));
    const batch = await batchOf(dest);
    await waitFor(
      async () => {
        const { rows } = await client.query<{ state: string }>("SELECT state FROM deliveries WHERE id = $1", [batch.lead]);
        return rows[0].state === "delivered";
      },
      { timeoutMs: 90_000, what: "the batch delivered by the second worker" },
    );
    // Sent again only once the dead worker's claim ended (CLAIM_S after it was taken), the same bytes.
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1].at - rx.requests[0].at).toBeGreaterThanOrEqual((lib.batches.CLAIM_S - 1) * 1000);
    expect(rx.requests[1].body).toBe(rx.requests[0].body);
    expect(rx.requests[1].headers["webhook-id"] ?? null).toBe(rx.requests[0].headers["webhook-id"] ?? null);
    // Both sends are in the log (docs/webhooks.md#interrupted-rounds): the dead worker's, logged by the
    // job that claimed the round after it, as interrupted, with the bytes it had built; then the answered one.
    const { rows: logged } = await client.query<{
      attempt_number: number;
      error_kind: string | null;
      outcome: string;
      request_body: string;
    }>("SELECT attempt_number, error_kind, outcome, request_body FROM attempts WHERE batch_id = $1 ORDER BY id", [batch.id]);
    expect(logged.map((a) => [a.attempt_number, a.error_kind, a.outcome])).toEqual([
      [1, "interrupted", "retry"],
      [1, null, "success"],
    ]);
    expect(logged.map((a) => a.request_body)).toEqual([rx.requests[0].body, rx.requests[1].body]);
  }, 120_000);
});
