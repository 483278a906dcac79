// SIGTERM mid-run: the worker finishes its in-flight deliveries, records every attempt it made, leaves
// no job active, and exits 0; a new worker delivers the rest, and nothing is sent twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "../lib/platform/db";
import { closeRuntime } from "../lib/platform/runtime";
import { createTestDatabase } from "./harness/pg";
import { startWorker, waitFor, type Proc } from "./harness/stack";
import { countDelivered, manyTracks, startCountingReceiver, type CountingReceiver } from "./harness/delivery/counting";
import { insertDestination, insertWorkspace } from "./harness/delivery/direct";
import { seedMessages } from "./harness/delivery/seed";

// More than one worker holds at once (4 parallel batches × 5 jobs × 100 deliveries), so some must wait.
const N = 4_000;
const WORKER_ENV = { WORKER_CONCURRENCY: "8", EVENTRAIL_RETRY_BASE_MS: "1000" };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let rx: CountingReceiver;
const procs: Proc[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  rx = await startCountingReceiver(30);
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await closeRuntime();
  await rx?.close();
  await db?.drop();
});

describe("graceful shutdown", () => {
  it("SIGTERM mid-run: in-flight deliveries finish and are recorded, the rest wait for the next worker, none is sent twice", async () => {
    const workspaceId = await insertWorkspace(db.url);
    const destinationId = await insertDestination(db.url, { workspaceId, urls: [`${rx.url}/hook`] });
    const first = await startWorker(db.url, WORKER_ENV);
    procs.push(first);
    await seedMessages(db.url, { workspaceId, destinationIds: [destinationId], messages: manyTracks(N, "term") });
    await waitFor(async () => rx.unique() >= 300, { timeoutMs: 60_000, what: "the run to be under way" });

    await first.stop(); // SIGTERM, then waits for the exit
    expect(first.child.exitCode).toBe(0);
    expect(first.output()).toContain('"worker stopped"');
    const seen = rx.unique();
    expect(seen).toBeLessThan(N);

    // Nothing half-done: no job left active, and everything the receiver got is recorded — one attempt
    // row per request received and each of those deliveries marked delivered.
    const active = await pool().query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name IN ('deliver', 'deliver-retry') AND state = 'active'`,
    );
    expect(active.rows[0].n).toBe(0);
    const attempts = await pool().query(`SELECT count(*)::int AS n FROM attempts WHERE destination_id = $1`, [destinationId]);
    expect(attempts.rows[0].n).toBe(rx.requests.length);
    expect(await countDelivered(db.url, destinationId)).toBe(seen);
    const orphans = await pool().query(
      `SELECT count(*)::int AS n FROM deliveries WHERE destination_id = $1 AND state = 'pending' AND attempt_count > 0`,
      [destinationId],
    );
    expect(orphans.rows[0].n).toBe(0);

    // The receiver was slow so that the run could be interrupted; the rest need not take as long.
    rx.setDelayMs(0);
    const second = await startWorker(db.url, WORKER_ENV);
    procs.push(second);
    await waitFor(async () => (await countDelivered(db.url, destinationId)) === N, {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: "all delivered",
    });
    expect(rx.unique()).toBe(N);
    expect(rx.duplicates()).toBe(0);
    console.log(
      `[graceful] SIGTERM after ${seen}/${N} received: exit 0, 0 active jobs, all ${N} delivered by the next worker, 0 duplicates`,
    );
  }, 200_000);
});
