// Retention: rows of various ages, deleted in bounded batches by the maintenance job (through a real
// worker and pg-boss), keeping whatever is younger than its retention and messages still being delivered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJob } from "../lib/platform/queue";
import { pool } from "../lib/platform/db";
import { closeRuntime } from "../lib/platform/runtime";
import { pruneExpiredData } from "../lib/maintenance/retention";
import { createTestDatabase } from "./harness/pg";
import { startWorker, waitFor, type Proc } from "./harness/stack";
import { insertDestination, insertWorkspace, withClient } from "./harness/delivery/direct";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let worker: Proc | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
});
afterAll(async () => {
  await worker?.stop();
  await closeRuntime();
  await db?.drop();
});

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();

/** Messages, deliveries, attempts, captured requests and sessions at the given ages (in days). */
async function seed(
  tag: string,
  ages: {
    messages: { age: number; state: "pending" | "delivered" | "failed" }[];
    attempts: number[];
    captures: number[];
    sessions: number[];
  },
) {
  const workspaceId = await insertWorkspace(db.url);
  const destinationId = await insertDestination(db.url, { workspaceId, urls: ["http://127.0.0.1:9/hook"] });
  return withClient(db.url, async (c) => {
    const messageIds: Record<string, string> = {};
    for (const [i, m] of ages.messages.entries()) {
      const id = (
        await c.query(
          `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, received_at, payload)
           VALUES (gen_random_uuid(), $1, $2, 'track', 'u', $3, $3, '{}') RETURNING id`,
          [workspaceId, `${tag}-m${i}`, daysAgo(m.age)],
        )
      ).rows[0].id;
      messageIds[`${tag}-m${i}`] = id;
      await c.query(
        `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, state) VALUES (gen_random_uuid(), $1, $2, $3, $4)`,
        [workspaceId, id, destinationId, m.state],
      );
    }
    const anyMessage = Object.values(messageIds)[0];
    for (const [i, age] of ages.attempts.entries()) {
      await c.query(
        `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number, started_at, duration_ms, request_headers, outcome)
         VALUES ($1, gen_random_uuid(), $2, $3, $4, 'track', 'http://127.0.0.1:9/hook', 1, $5, 10, '{}', 'success')`,
        [workspaceId, destinationId, anyMessage, `${tag}-a${i}`, daysAgo(age)],
      );
    }
    const binId = `${tag}-bin`;
    await c.query(`INSERT INTO capture_bins (id, workspace_id) VALUES ($1, $2)`, [binId, workspaceId]);
    for (const [i, age] of ages.captures.entries()) {
      await c.query(
        `INSERT INTO captured_requests (bin_id, method, path, headers, body, body_size, received_at) VALUES ($1, 'POST', $2, '{}', '', 0, $3)`,
        [binId, `/c/${i}`, daysAgo(age)],
      );
    }
    const userId = (
      await c.query(`INSERT INTO users (id, email, password_hash) VALUES (gen_random_uuid(), $1, 'x') RETURNING id`, [`${tag}@example.com`])
    ).rows[0].id;
    for (const [i, age] of ages.sessions.entries()) {
      await c.query(`INSERT INTO sessions (id, user_id, workspace_id, csrf_token, expires_at) VALUES ($1, $2, $3, 'c', $4)`, [
        `${tag}-s${i}`,
        userId,
        workspaceId,
        daysAgo(age),
      ]);
    }
    return { workspaceId, destinationId, binId, messageIds };
  });
}

async function survivors(workspaceId: string, binId: string) {
  return withClient(db.url, async (c) => ({
    messages: (await c.query(`SELECT message_id FROM messages WHERE workspace_id = $1 ORDER BY message_id`, [workspaceId])).rows.map(
      (r) => r.message_id,
    ),
    deliveries: (await c.query(`SELECT count(*)::int AS n FROM deliveries WHERE workspace_id = $1`, [workspaceId])).rows[0].n,
    attempts: (await c.query(`SELECT message_id FROM attempts WHERE workspace_id = $1 ORDER BY message_id`, [workspaceId])).rows.map(
      (r) => r.message_id,
    ),
    captures: (await c.query(`SELECT path FROM captured_requests WHERE bin_id = $1 ORDER BY path`, [binId])).rows.map((r) => r.path),
    sessions: (await c.query(`SELECT id FROM sessions WHERE workspace_id = $1 ORDER BY id`, [workspaceId])).rows.map((r) => r.id),
  }));
}

describe("retention", () => {
  it("deletes what is older than each retention, in batches, and keeps messages still being delivered", async () => {
    const { workspaceId, binId } = await seed("fn", {
      // m0 old+delivered, m1 old+failed, m2 old+pending (kept), m3 recent, m4 just inside 30 days
      messages: [
        { age: 40, state: "delivered" },
        { age: 31, state: "failed" },
        { age: 45, state: "pending" },
        { age: 1, state: "delivered" },
        { age: 29, state: "delivered" },
      ],
      attempts: [40, 35, 31, 31, 30.5, 29, 2, 0],
      captures: [8, 7.5, 6, 0.1],
      sessions: [-1, 1, 3],
    });
    // Rejection counters (the source page's last 24 hours) are kept a week.
    const { rows: src } = await pool().query(
      `INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES (gen_random_uuid(), $1, 'fn', 'fn-key', now()) RETURNING id`,
      [workspaceId],
    );
    for (const age of [9, 8, 6, 0])
      await pool().query(
        `INSERT INTO rejection_counts (source_id, hour, category, count) VALUES ($1, date_trunc('hour', $2::timestamptz), 'missing_id', 1)`,
        [src[0].id, daysAgo(age)],
      );
    // The audit log is kept as long as the attempt log unless told otherwise.
    for (const age of [40, 31, 29, 1])
      await pool().query(
        `INSERT INTO audit_events (workspace_id, at, actor_type, actor_label, action, resource_type) VALUES ($1, $2, 'user', 'x', 'source.create', 'source')`,
        [workspaceId, daysAgo(age)],
      );
    // A batch of 2 makes every table take several batches.
    const r = await pruneExpiredData({ days: { messages: 30, attempts: 30, captures: 7 }, batchSize: 2 });
    expect(r).toMatchObject({ attempts: 5, messages: 2, captures: 2, sessions: 2, rejectionCounts: 2, auditEvents: 2, complete: true });
    expect((await pool().query(`SELECT count(*)::int AS n FROM audit_events WHERE workspace_id = $1`, [workspaceId])).rows[0].n).toBe(2);
    expect(r.batches).toBeGreaterThanOrEqual(3 + 2 + 2 + 2 + 2);
    expect((await pool().query(`SELECT count(*)::int AS n FROM rejection_counts WHERE source_id = $1`, [src[0].id])).rows[0].n).toBe(2);
    expect(await survivors(workspaceId, binId)).toEqual({
      messages: ["fn-m2", "fn-m3", "fn-m4"],
      deliveries: 3,
      attempts: ["fn-a5", "fn-a6", "fn-a7"],
      captures: ["/c/2", "/c/3"],
      sessions: ["fn-s0"],
    });

    // Once its delivery is over, the old message goes on the next run.
    await pool().query(
      `UPDATE deliveries SET state = 'failed' WHERE message_row_id = (SELECT id FROM messages WHERE message_id = 'fn-m2')`,
    );
    expect((await pruneExpiredData({ days: { messages: 30, attempts: 30, captures: 7 } })).messages).toBe(1);
    expect((await survivors(workspaceId, binId)).messages).toEqual(["fn-m3", "fn-m4"]);
  });

  it("stops at its time budget and reports the run incomplete (the next run resumes)", async () => {
    const { workspaceId, binId } = await seed("budget", {
      messages: [{ age: 1, state: "delivered" }],
      attempts: [50, 50, 50, 50, 50, 50],
      captures: [],
      sessions: [],
    });
    const r = await pruneExpiredData({ days: { messages: 30, attempts: 30, captures: 7 }, batchSize: 2, budgetMs: -1 });
    expect(r).toMatchObject({ attempts: 2, complete: false });
    expect((await survivors(workspaceId, binId)).attempts).toHaveLength(4);
  });

  it("runs as the worker's scheduled maintenance job with the configured ages", async () => {
    const { workspaceId, binId } = await seed("job", {
      messages: [
        { age: 3, state: "delivered" },
        { age: 1, state: "delivered" },
      ],
      attempts: [3, 1],
      captures: [3, 1],
      sessions: [],
    });
    worker = await startWorker(db.url, { RETENTION_MESSAGES_DAYS: "2", RETENTION_ATTEMPTS_DAYS: "2", RETENTION_CAPTURES_DAYS: "2" });
    const schedules = await pool().query(`SELECT name, cron, data FROM pgboss.schedule WHERE name = 'maintenance'`);
    expect(schedules.rows).toEqual([{ name: "maintenance", cron: "*/10 * * * *", data: { task: "retention" } }]);

    await sendJob("maintenance", { task: "retention" });
    await waitFor(async () => worker!.output().includes('"retention run done"'), { what: "the retention job to run" });
    expect(await survivors(workspaceId, binId)).toMatchObject({
      messages: ["job-m1"],
      deliveries: 1,
      attempts: ["job-a1"],
      captures: ["/c/1"],
    });
  });
});
