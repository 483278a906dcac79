// Which of the product's commits wait for the WAL flush (docs/architecture.md#commits): pg-boss's fetch
// and completion of a job, the workers' wake-up NOTIFY and the throttles' counters do not
// (lib/platform/queue-commits.ts, db.ts asyncCommitPool); a job sent with its work, and the Tracking
// API's statement, do. Postgres itself reports it: triggers record each write's `synchronous_commit`.
import type { Job, PgBoss } from "pg-boss";
import { notifyChannelSql } from "pg-boss/dist/plans.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asyncCommitPool, pool } from "../lib/platform/db";
import { startWorkerQueue, wakeWorkers } from "../lib/platform/queue";
import { takePoint } from "../lib/platform/rate-limits";
import { closeRuntime } from "../lib/platform/runtime";
import { useTestDatabase } from "./harness/audience-fixtures";

let db: Awaited<ReturnType<typeof useTestDatabase>>;
let boss: PgBoss;
const QUEUE = "commit-kinds";
/** The queue's job table (pg-boss's name for it). */
let jobTable = "";

/** Records, for every row written to `table`, the operation, the row's state (jobs) and the session's synchronous_commit. */
async function recordCommits(table: string, fn: string, state: string) {
  await pool().query(`
    CREATE TABLE IF NOT EXISTS commit_log (tbl text, op text, state text, sync text);
    CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO commit_log VALUES (TG_TABLE_NAME, TG_OP, ${state}, current_setting('synchronous_commit'));
      RETURN NEW;
    END $$;
    CREATE TRIGGER ${fn} AFTER INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}();`);
}

const logged = async (tbl: string) =>
  (await pool().query<{ op: string; state: string | null; sync: string }>("SELECT op, state, sync FROM commit_log WHERE tbl = $1", [tbl]))
    .rows;

beforeAll(async () => {
  db = await useTestDatabase();
  const first = await startWorkerQueue(() => {});
  await first.createQueue(QUEUE);
  const { rows } = await pool().query<{ table_name: string }>("SELECT table_name FROM pgboss.queue WHERE name = $1", [QUEUE]);
  jobTable = rows[0].table_name;
  await recordCommits(`pgboss.${jobTable}`, "log_job", "NEW.state::text");
  await recordCommits("rate_limits", "log_counter", "NULL");
  await closeRuntime();
  boss = await startWorkerQueue(() => {});
});
afterAll(async () => {
  await db?.close();
});

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

describe("commits that do not wait for the WAL flush", () => {
  it("a job is sent with a flushing commit, fetched and completed without one", async () => {
    const done: string[] = [];
    await boss.work(QUEUE, { pollingIntervalSeconds: 0.5 }, async (jobs: Job<unknown>[]) => {
      for (const j of jobs) done.push(j.id);
    });
    const id = await boss.send(QUEUE, { n: 1 });
    await until(() => done.includes(id!), 10_000);
    expect(done).toContain(id);
    await until(async () => (await logged(jobTable)).some((r) => r.state === "completed"), 5_000);
    await boss.offWork(QUEUE);
    const rows = (await logged(jobTable)).map((r) => `${r.op} ${r.state}: ${r.sync}`);
    expect(rows).toEqual(["INSERT created: on", "UPDATE active: off", "UPDATE completed: off"]);
  });

  it("a transaction's fetch of a job keeps the transaction's own commit", async () => {
    const id = await boss.send(QUEUE, { n: 2 });
    const client = await pool().connect();
    try {
      await client.query("BEGIN");
      const jobs = await boss.fetch(QUEUE, { db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) } });
      expect(jobs.map((j) => j.id)).toEqual([id]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const mine = (await logged(jobTable)).slice(-1)[0];
    expect(mine).toEqual({ op: "UPDATE", state: "active", sync: "on" });
  });

  it("the throttles' counters and the wake-up NOTIFY commit without a flush", async () => {
    await takePoint("setup", "192.0.2.10");
    const counters = await logged("rate_limits");
    expect(counters.length).toBeGreaterThan(0);
    expect(counters.every((r) => r.sync === "off")).toBe(true);
    // The NOTIFY has no row to record: its session says how its commit goes, and a listener hears it.
    const setting = await asyncCommitPool().query<{ s: string }>("SELECT current_setting('synchronous_commit') AS s");
    expect(setting.rows[0].s).toBe("off");
    const listener = await pool().connect();
    try {
      const heard = new Promise<string>((resolve) => listener.on("notification", (n) => resolve(n.payload ?? "")));
      const { rows } = await pool().query<{ channel: string }>(`SELECT ${notifyChannelSql("pgboss")} AS channel`);
      await listener.query(`LISTEN "${rows[0].channel}"`);
      wakeWorkers("deliver");
      expect(await heard).toBe("deliver");
    } finally {
      listener.release();
    }
  });
});
