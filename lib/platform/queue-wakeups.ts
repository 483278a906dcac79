import "server-only";
/**
 * How a job's NOTIFY wakes a queue's workers (docs/architecture.md#waking-workers). pg-boss wakes
 * every worker of the queue on each NOTIFY, so with a lane of 4 parallel batches (lib/delivery/policy.ts
 * LANES) each job was fetched for by 4 workers and found by one: 4,104 fetches for 1,000 deliveries
 * in a 20 s drill phase at 50 calls a second, each a statement Postgres plans and runs. Here a NOTIFY
 * wakes one worker: one that is waiting and not already woken, else one busy one that has not been
 * told, so that it fetches again as soon as it is done. A backlog still reaches every worker: a
 * fetch that comes back full wakes one more waiting worker, which does the same.
 * After the listener reconnects, pg-boss still wakes every worker (forceFetchLnWorkers).
 *
 * This replaces two methods of pg-boss's Manager (12.35; its `workers` map and each Worker's
 * `loopDelayPromise`, `beenNotified` and `notify()`). test/queue-wakeups.int.test.ts fails if they stop
 * meaning what they mean here.
 */

type WorkerLike = { name: string; loopDelayPromise: unknown; beenNotified: boolean; notify(): void };
type ManagerLike = {
  workers: Map<string, WorkerLike>;
  notifyQueue(name: string): void;
  fetch: (name: string, options?: { batchSize?: number }) => Promise<unknown[] | null>;
};

/** Wakes one worker of `name` that waits and was not woken yet; true if there was one. */
function wakeWaiting(manager: ManagerLike, name: string): boolean {
  for (const w of manager.workers.values()) {
    if (w.name === name && w.loopDelayPromise && !w.beenNotified) {
      w.notify();
      return true;
    }
  }
  return false;
}

/** One worker per NOTIFY: a waiting one, else a busy one not told yet (it fetches again when done). */
function notifyQueue(this: ManagerLike, name: string): void {
  if (wakeWaiting(this, name)) return;
  for (const w of this.workers.values()) {
    if (w.name === name && !w.loopDelayPromise && !w.beenNotified) {
      w.notify();
      return;
    }
  }
}

let installed: Promise<void> | null = null;

/** Installs the wake-ups on pg-boss's Manager, once per process, before any PgBoss is made. */
export function installQueueWakeups(): Promise<void> {
  installed ??= (async () => {
    const { default: Manager } = (await import("pg-boss/dist/manager.js")) as unknown as { default: { prototype: ManagerLike } };
    const proto = Manager.prototype;
    const fetchJobs = proto.fetch;
    proto.notifyQueue = notifyQueue;
    proto.fetch = async function (this: ManagerLike, name, options) {
      const jobs = await fetchJobs.call(this, name, options);
      // A full fetch (as many jobs as it asked for): there may be more, so one more waiting worker
      // looks, and does the same.
      if (jobs && jobs.length > 0 && jobs.length >= (options?.batchSize ?? 1)) wakeWaiting(this, name);
      return jobs;
    };
  })();
  return installed;
}
