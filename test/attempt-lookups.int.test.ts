/**
 * The attempt log's lookups by messageId and userId (the request log's filters, replay by filter,
 * erasure) against indexes keyed by the attempt's UTC day first (lib/request-log/attempt-days.ts):
 * they find attempts on every day the log holds, the oldest and today's included, and their plans
 * read the day-keyed indexes.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./harness/pg";
import { seed } from "./harness/deletions/seed";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let client: pg.Pool;
let lib: {
  attempts: typeof import("../lib/request-log/attempts");
  erase: typeof import("../lib/deletions/erase");
  runtime: typeof import("../lib/platform/runtime");
};
let ws: string;
let other: string;
/** ids of the target's three attempts, newest first: today, 15 days ago, 30 days ago (the log's oldest row) */
let targetIds: string[];

const HISTORY = 3_000;
const DAYS = 30;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url; // read once by lib/platform/env on first use, below
  lib = {
    attempts: await import("../lib/request-log/attempts"),
    erase: await import("../lib/deletions/erase"),
    runtime: await import("../lib/platform/runtime"),
  };
  client = new pg.Pool({ connectionString: db.url, max: 2 });
  const s = seed(client);
  ws = await s.workspace("A");
  other = await s.workspace("B");
  const dest = await s.destination(ws, { name: "d", sourceIds: [] });
  const otherDest = await s.destination(other, { name: "d", sourceIds: [] });
  // 30 days of history in time order, as the worker appends it, with random message ids and 300
  // users. Rows 1 (the oldest), 1,500 and 3,000 (now) are one message of one user, whose message
  // row is gone (message retention ran first), so only the attempts' own columns find them.
  const { rows } = await client.query<{ id: string; message_id: string }>(
    `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                           started_at, duration_ms, request_headers, request_body, response_status, response_body, outcome)
     SELECT $1, gen_random_uuid(), $2, gen_random_uuid(),
            CASE WHEN g IN (1, 1500, $3) THEN 'target-message' ELSE gen_random_uuid()::text END, 'track',
            CASE WHEN g IN (1, 1500, $3) THEN 'target-user' ELSE 'user-' || (g % 300) END,
            'http://127.0.0.1:9/hook', 1, now() - make_interval(days => $4) + g * (make_interval(days => $4) / $3),
            12, '{}', '{"secret":"pii"}', 200, 'echo pii', 'success'
     FROM generate_series(1, $3::int) AS g ORDER BY g
     RETURNING id, message_id`,
    [ws, dest, HISTORY, DAYS],
  );
  targetIds = rows
    .filter((r) => r.message_id === "target-message")
    .map((r) => String(r.id))
    .reverse();
  // The same message and user in another workspace: never listed, never erased from A.
  await client.query(
    `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                           started_at, duration_ms, request_headers, request_body, outcome)
     VALUES ($1, gen_random_uuid(), $2, gen_random_uuid(), 'target-message', 'track', 'target-user', 'http://127.0.0.1:9/hook', 1,
             now(), 12, '{}', '{"secret":"other"}', 'success')`,
    [other, otherDest],
  );
  await client.query("ANALYZE attempts");
});

afterAll(async () => {
  await lib?.runtime.closeRuntime();
  await client?.end();
  await db?.drop();
});

const page = (filter: { messageId?: string; userId?: string }) =>
  lib.attempts.listAttempts({ workspaceId: ws, query: { ...filter, limit: 50 } });

/** The names of the indexes a plan reads. */
async function indexesRead(text: string, values: unknown[]): Promise<string[]> {
  const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
  const names: string[] = [];
  const walk = (n: { "Index Name"?: string; Plans?: unknown[] }) => {
    if (n["Index Name"]) names.push(n["Index Name"]);
    for (const c of n.Plans ?? []) walk(c as typeof n);
  };
  walk(rows[0]["QUERY PLAN"][0].Plan);
  return names;
}

describe("looking attempts up by messageId and userId", () => {
  it("finds them on every day the log holds, its oldest row and today's included, in this workspace only", async () => {
    expect(targetIds).toHaveLength(3);
    const byMessage = await page({ messageId: "target-message" });
    expect(byMessage.attempts.map((a) => a.id)).toEqual(targetIds);
    const byUser = await page({ userId: "target-user" });
    expect(byUser.attempts.map((a) => a.id)).toEqual(targetIds);
    const both = await page({ userId: "target-user", messageId: "target-message" });
    expect(both.attempts.map((a) => a.id)).toEqual(targetIds);
    expect((await page({ messageId: "no-such-message" })).attempts).toEqual([]);
  });

  it("reads the day-keyed index of each filter", async () => {
    const byMessage = lib.attempts.attemptPageQuery(ws, { messageId: "target-message", limit: 50 });
    expect(await indexesRead(byMessage.text, byMessage.values)).toContain("attempts_workspace_id_started_day_message_id_idx");
    const byUser = lib.attempts.attemptPageQuery(ws, { userId: "target-user", limit: 50 });
    expect(await indexesRead(byUser.text, byUser.values)).toContain("attempts_workspace_id_started_day_user_id_idx");
  });

  it("erases a user's attempt bodies on every day, those whose message is gone included, and only that user's", async () => {
    const tx = await client.connect();
    try {
      await tx.query("BEGIN");
      await lib.erase.eraseUserData(tx, { workspaceId: ws, userId: "target-user" });
      await tx.query("COMMIT");
    } finally {
      tx.release();
    }
    const { rows } = await client.query<{ workspace_id: string; target: boolean; erased: boolean; n: number }>(
      `SELECT workspace_id, user_id = 'target-user' AS target, request_body IS NULL AND response_body IS NULL AS erased, count(*)::int AS n
         FROM attempts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    const counts = rows.map((r) => ({ ...r, workspace_id: r.workspace_id === ws ? "A" : "B" }));
    expect(counts).toEqual(
      expect.arrayContaining([
        { workspace_id: "A", target: true, erased: true, n: 3 },
        { workspace_id: "A", target: false, erased: false, n: HISTORY - 3 },
        { workspace_id: "B", target: true, erased: false, n: 1 },
      ]),
    );
    expect(counts).toHaveLength(3);
  });
});
