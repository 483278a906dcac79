// A job's NOTIFY wakes one of its queue's workers, not all of them, and a backlog still reaches every
// worker (lib/platform/queue-wakeups.ts; docs/architecture.md#waking-workers). Real pg-boss, real
// LISTEN/NOTIFY, the product's own start of it (startWorkerQueue).
import type { Job, PgBoss } from "pg-boss";
import Manager from "pg-boss/dist/manager.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkerQueue } from "../lib/platform/queue";
import { closeRuntime } from "../lib/platform/runtime";
import { laneWorkOptions } from "../lib/delivery/lanes";
import { useTestDatabase } from "./harness/audience-fixtures";

let db: Awaited<ReturnType<typeof useTestDatabase>>;
let boss: PgBoss;
// Every fetch a worker makes, by queue: counted around pg-boss's own (and the product's) fetch.
const fetches = new Map<string, number>();

const QUEUES = ["wake-one", "wake-backlog"];

beforeAll(async () => {
  db = await useTestDatabase();
  // The queues exist before the worker's pg-boss starts, as the product's do once installed: pg-boss
  // reads them as it starts, so their NOTIFY is on and their workers' backstop is 10 s, not the 2 s
  // poll that would wake them without any NOTIFY.
  const first = await startWorkerQueue(() => {});
  for (const q of QUEUES) await first.createQueue(q, { notify: true });
  await closeRuntime();
  boss = await startWorkerQueue(() => {});
  const proto = (Manager as unknown as { prototype: { fetch: (name: string, o?: object) => Promise<unknown> } }).prototype;
  const fetch = proto.fetch;
  proto.fetch = function (this: unknown, name: string, o?: object) {
    fetches.set(name, (fetches.get(name) ?? 0) + 1);
    return fetch.call(this, name, o);
  };
});
afterAll(async () => {
  await db?.close();
});

// The delivery lane's options: 4 workers, 5 jobs a fetch, again at once after a full one, NOTIFY
// with a 10 s backstop (lib/delivery/policy.ts LANES).
const LANE = laneWorkOptions("deliver");
const WORKERS = LANE.localConcurrency ?? 1;

/** Until `check` holds, or `ms` passed. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

describe("waking a queue's workers", () => {
  it("one job's NOTIFY makes one fetch, not one per worker", async () => {
    const queue = QUEUES[0];
    const done: string[] = [];
    await boss.work(queue, LANE, async (jobs: Job<unknown>[]) => {
      for (const j of jobs) done.push(j.id);
    });
    // Each worker fetches once as it starts, then waits for a NOTIFY (or its 10 s backstop).
    await until(() => (fetches.get(queue) ?? 0) >= WORKERS, 5_000);
    await new Promise((r) => setTimeout(r, 200));
    const before = fetches.get(queue) ?? 0;
    for (let i = 0; i < 10; i++) {
      const id = await boss.send(queue, { i });
      await until(() => done.includes(id!), 5_000);
      expect(done, `job ${i} handled`).toContain(id);
    }
    // pg-boss alone: 4 fetches a job (40); here 1, and at most one more when a fetch races a NOTIFY.
    expect((fetches.get(queue) ?? 0) - before).toBeLessThanOrEqual(15);
  });

  it("a backlog reaches every worker: each full fetch wakes one more", async () => {
    const queue = QUEUES[1];
    let running = 0;
    let most = 0;
    let handled = 0;
    // How many batches ran at once before the first one ended.
    let together = 0;
    await boss.work(queue, LANE, async (jobs: Job<unknown>[]) => {
      running++;
      most = Math.max(most, running);
      // Each batch holds its worker until all 4 run at once, or 3 s (well within the 10 s backstop,
      // so polling cannot be what brought the others).
      await until(() => most >= WORKERS, 3_000);
      handled += jobs.length;
      if (together === 0) together = most;
      running--;
    });
    await until(() => (fetches.get(queue) ?? 0) >= WORKERS, 5_000);
    await new Promise((r) => setTimeout(r, 200));
    // 40 jobs in one statement: one NOTIFY.
    await boss.insert(
      queue,
      Array.from({ length: 40 }, (_, i) => ({ data: { i } })),
    );
    await until(() => handled === 40, 20_000);
    expect(handled).toBe(40);
    expect(together, "batches running at once before the first ended").toBe(WORKERS);
  });
});
