// Endpoint isolation across jobs (docs/webhooks.md#endpoint-isolation): a dead endpoint's deliveries
// that are due again (retries, deferrals) must not stand ahead of a healthy destination's new
// delivery in the worker's fetch order, nor take the batch slots it needs. Real worker processes, a
// real hanging HTTP server and a healthy one; the assertions are on the order in which pg-boss
// handed out the jobs, not on timings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJob } from "../lib/platform/queue";
import { closeRuntime } from "../lib/platform/runtime";
import { createTestDatabase } from "./harness/pg";
import { startWorker, waitFor, type Proc } from "./harness/stack";
import { manyTracks } from "./harness/delivery/counting";
import { insertDestination, insertWorkspace, withClient } from "./harness/delivery/direct";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { seedMessages } from "./harness/delivery/seed";

// One connection per origin, so that one hanging request fills the dead origin; short retry steps.
const WORKER_ENV = { WORKER_CONCURRENCY: "1", EVENTRAIL_RETRY_BASE_MS: "100", EVENTRAIL_RETRY_MAX_MS: "1000" };
const DEAD_DELIVERIES = 40;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const procs: Proc[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill()));
  await closeRuntime();
  await Promise.all(receivers.map((r) => r.close()));
  await db?.drop();
});

const query = <T>(sql: string, params: unknown[]) => withClient(db.url, async (c) => (await c.query(sql, params)).rows as T[]);

/** The deliveries' jobs (either lane) that are waiting: not yet fetched, and due only later when `laterOnly`. */
async function waitingJobs(deliveryIds: string[], laterOnly: boolean): Promise<number> {
  const [{ n }] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pgboss.job
      WHERE data->'deliveryIds' ?| $1::text[] AND state = 'created' ${laterOnly ? "AND start_after > now()" : ""}`,
    [deliveryIds],
  );
  return n;
}

describe("delivery lanes", () => {
  it("a healthy destination's new delivery is fetched ahead of a dead endpoint's due retries", async () => {
    const workspaceId = await insertWorkspace(db.url);
    const hanging = await startReceiver(() => "hang");
    const healthy = await startReceiver();
    receivers.push(hanging, healthy);
    const deadId = await insertDestination(db.url, { workspaceId, urls: [`${hanging.url}/hook`] });
    const healthyId = await insertDestination(db.url, { workspaceId, urls: [`${healthy.url}/hook`] });

    // 1. One delivery takes the dead origin's only slot and hangs; its batch lets it go late (its
    //    next_attempt_at is pushed to its safety job), so the origin is known to be slow from then on.
    const a = await startWorker(db.url, WORKER_ENV);
    procs.push(a);
    const first = await seedMessages(db.url, { workspaceId, destinationIds: [deadId], messages: manyTracks(1, "first") });
    await waitFor(
      async () =>
        (await query(`SELECT 1 FROM deliveries WHERE id = $1 AND next_attempt_at IS NOT NULL`, [first.deliveryIds[0]])).length > 0,
      { timeoutMs: 30_000, intervalMs: 100, what: "the hanging delivery to be let go late" },
    );
    // 2. More deliveries to the dead endpoint: no slot, slow origin: each is deferred (no attempt) to a
    //    later turn, and so has a retry job of its own.
    const more = await seedMessages(db.url, { workspaceId, destinationIds: [deadId], messages: manyTracks(DEAD_DELIVERIES, "dead") });
    await waitFor(
      async () => {
        const [{ n }] = await query<{ n: number }>(
          `SELECT count(*)::int AS n FROM deliveries WHERE id = ANY($1::uuid[]) AND state = 'pending' AND next_attempt_at IS NOT NULL`,
          [more.deliveryIds],
        );
        return n === DEAD_DELIVERIES;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: "the dead endpoint's deliveries to be deferred" },
    );
    await a.stop();
    const deadIds = [...first.deliveryIds, ...more.deliveryIds];

    // 3. With no worker running, wait until every one of their jobs is due, then a healthy delivery
    //    arrives: its job is the newest, behind more due retry jobs than a worker fetches at once.
    await waitFor(async () => (await waitingJobs(deadIds, true)) === 0, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: "the dead endpoint's retries to fall due",
    });
    // Deferred rounds share a job when they fall due in the same millisecond, so how many jobs the
    // engine made for them depends on the machine's speed: one more due retry job per delivery gives
    // the retry lane a backlog of known size, more than it takes in its first fetches (2 batches of
    // 5 jobs, lib/delivery/policy.ts LANES).
    for (const id of more.deliveryIds) await sendJob("deliverRetry", { deliveryIds: [id] });
    expect(await waitingJobs(deadIds, false)).toBeGreaterThan(DEAD_DELIVERIES);
    const fresh = await seedMessages(db.url, { workspaceId, destinationIds: [healthyId], messages: manyTracks(1, "healthy") });

    const b = await startWorker(db.url, WORKER_ENV);
    procs.push(b);
    await waitFor(
      async () => (await query(`SELECT 1 FROM deliveries WHERE id = $1 AND state = 'delivered'`, [fresh.deliveryIds[0]])).length > 0,
      { timeoutMs: 30_000, intervalMs: 100, what: "the healthy delivery" },
    );
    expect(healthy.requests).toHaveLength(1);

    // The healthy job was handed out while retry jobs of the dead endpoint, due before it was even
    // created, still waited: it did not queue behind them (in one queue, oldest first, it did).
    const [{ n: stillWaiting }] = await query<{ n: number }>(
      `WITH h AS (SELECT created_on, started_on FROM pgboss.job WHERE data->'deliveryIds' ? $2)
       SELECT count(*)::int AS n FROM pgboss.job j, h
        WHERE j.data->'deliveryIds' ?| $1::text[] AND j.created_on < h.created_on
          AND (j.started_on IS NULL OR j.started_on > h.started_on)`,
      [deadIds, fresh.deliveryIds[0]],
    );
    expect(stillWaiting).toBeGreaterThan(0);
    await b.stop();
  }, 240_000);
});
