// Faults: a worker killed with SIGKILL mid-run, and two workers at once. Nothing is lost; duplicates
// only across a crash (at-least-once). Figures are printed for the report.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeRuntime } from "../lib/platform/runtime";
import { createTestDatabase } from "./harness/pg";
import { startWorker, waitFor, type Proc } from "./harness/stack";
import { countDelivered, manyTracks, startCountingReceiver, type CountingReceiver } from "./harness/delivery/counting";
import { insertDestination, insertWorkspace, withClient } from "./harness/delivery/direct";
import { seedMessages } from "./harness/delivery/seed";

const N = 2_000;
// A small per-origin cap and a slow-ish receiver make a run last long enough to be interrupted.
const WORKER_ENV = { WORKER_CONCURRENCY: "8", EVENTRAIL_RETRY_BASE_MS: "1000" };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let workspaceId: string;
const procs: Proc[] = [];
const receivers: CountingReceiver[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  workspaceId = await insertWorkspace(db.url);
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await closeRuntime();
  await Promise.all(receivers.map((r) => r.close()));
  await db?.drop();
});

async function setUp(tag: string, delayMs: number) {
  const rx = await startCountingReceiver(delayMs);
  receivers.push(rx);
  const destinationId = await insertDestination(db.url, { workspaceId, urls: [`${rx.url}/hook`] });
  return { rx, destinationId, messages: manyTracks(N, tag) };
}

describe("faults", () => {
  it("kill -9 of the worker mid-run: after a restart every message is delivered", async () => {
    const { rx, destinationId, messages } = await setUp("kill", 20);
    const first = await startWorker(db.url, WORKER_ENV);
    procs.push(first);
    await seedMessages(db.url, { workspaceId, destinationIds: [destinationId], messages });
    await waitFor(async () => rx.unique() >= 300, { timeoutMs: 60_000, what: "the run to be under way" });
    await first.kill("SIGKILL");
    const atKill = rx.unique();
    expect(atKill).toBeLessThan(N);
    // The receiver was slow so that the run could be interrupted; the rest need not take as long.
    rx.setDelayMs(0);

    const second = await startWorker(db.url, WORKER_ENV);
    procs.push(second);
    await waitFor(async () => (await countDelivered(db.url, destinationId)) === N, {
      timeoutMs: 180_000,
      intervalMs: 500,
      what: "all messages delivered",
    });
    expect(rx.unique()).toBe(N);
    for (const m of messages) expect(rx.counts.get(m.messageId)).toBeGreaterThanOrEqual(1);
    // Every request the receiver got is in the log: a round the killed worker sent and never recorded
    // is logged as interrupted before it is sent again (docs/webhooks.md#interrupted-rounds).
    const logged = await withClient(db.url, async (c) => {
      const { rows } = await c.query<{ message_id: string; n: number }>(
        "SELECT message_id, count(*)::int AS n FROM attempts WHERE destination_id = $1 GROUP BY 1",
        [destinationId],
      );
      return new Map(rows.map((r) => [r.message_id, r.n]));
    });
    const unlogged = messages.filter((m) => (logged.get(m.messageId) ?? 0) < (rx.counts.get(m.messageId) ?? 0)).map((m) => m.messageId);
    expect(unlogged).toEqual([]);
    console.log(
      `[faults] kill -9 after ${atKill}/${N} received: all ${N} delivered, ${rx.duplicates()} duplicate deliveries seen by the receiver`,
    );
    await second.stop();
  }, 300_000);

  it("a batch's late rounds are recorded as they end, so a kill re-sends only those still in flight", async () => {
    // 40 deliveries through 8 connection slots to a receiver taking 1 s each: the batch lets them go
    // late and they end 8 at a time over ~5 s. Recorded only when the last one ended, a kill in
    // those 5 s re-sent every one that had been delivered (drill 3's duplicates).
    const n = 40;
    const rx = await startCountingReceiver(1_000);
    receivers.push(rx);
    const destinationId = await insertDestination(db.url, { workspaceId, urls: [`${rx.url}/hook`] });
    const worker = await startWorker(db.url, { WORKER_CONCURRENCY: "8" });
    procs.push(worker);
    await seedMessages(db.url, { workspaceId, destinationIds: [destinationId], messages: manyTracks(n, "late") });
    await waitFor(async () => (await countDelivered(db.url, destinationId)) >= 8, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: "the first late rounds recorded",
    });
    expect(rx.unique()).toBeLessThan(n);
    await waitFor(async () => (await countDelivered(db.url, destinationId)) === n, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: "all messages delivered",
    });
    expect(rx.duplicates()).toBe(0);
    await worker.stop();
  }, 120_000);

  it("two workers at once: every message delivered exactly once", async () => {
    const { rx, destinationId, messages } = await setUp("two", 2);
    const workers = await Promise.all([startWorker(db.url, WORKER_ENV), startWorker(db.url, WORKER_ENV)]);
    procs.push(...workers);
    await seedMessages(db.url, { workspaceId, destinationIds: [destinationId], messages });
    await waitFor(async () => (await countDelivered(db.url, destinationId)) === N, {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: "all messages delivered",
    });
    expect(rx.unique()).toBe(N);
    expect(rx.duplicates()).toBe(0);
    expect(rx.requests).toHaveLength(N);
    console.log(`[faults] two workers: ${N} delivered, ${rx.duplicates()} duplicates`);
  }, 200_000);
});
