import "server-only";
import { asyncCommitPool } from "./db";

/**
 * pg-boss's fetch and completion of jobs, committed without waiting for the WAL flush: on
 * asyncCommitPool's connections (lib/platform/db.ts; docs/architecture.md#commits). Both are state
 * changes of a job that the worker's own synchronous commits (a delivery's attempts) flush in
 * passing, and whose loss in a crash of Postgres redoes work, never loses it: a fetch forgotten
 * leaves the job to be fetched again; a completion forgotten leaves it active until it expires and
 * runs again, where it finds its deliveries settled — as after a worker killed between the two.
 * A caller's own `db` (a transaction) is kept.
 *
 * This replaces two methods of pg-boss's Manager (12.35: `fetch` and `complete`, each honouring
 * `options.db`); test/queue-commits.int.test.ts fails if they stop running there.
 */

type Db = { executeSql(text: string, values?: unknown[]): Promise<unknown> };
type Options = { db?: Db } & Record<string, unknown>;
type ManagerLike = {
  fetch: (name: string, options?: Options) => Promise<unknown>;
  complete: (name: string, id: unknown, data?: unknown, options?: Options) => Promise<unknown>;
};

/** pg-boss's database interface, on asyncCommitPool. */
export const asyncCommitDb: Db = { executeSql: (text, values) => asyncCommitPool().query(text, values) };

let installed: Promise<void> | null = null;

/** Installs the commits on pg-boss's Manager, once per process, before any PgBoss is made. */
export function installQueueCommits(): Promise<void> {
  installed ??= (async () => {
    const { default: Manager } = (await import("pg-boss/dist/manager.js")) as unknown as { default: { prototype: ManagerLike } };
    const proto = Manager.prototype;
    const fetchJobs = proto.fetch;
    const completeJobs = proto.complete;
    proto.fetch = function (this: ManagerLike, name, options = {}) {
      return fetchJobs.call(this, name, { ...options, db: options.db ?? asyncCommitDb });
    };
    proto.complete = function (this: ManagerLike, name, id, data, options = {}) {
      return completeJobs.call(this, name, id, data, { ...options, db: options.db ?? asyncCommitDb });
    };
  })();
  return installed;
}
