import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, insertWorkspaceAndDestination } from "./harness/pg";
import { recordRound, type AttemptRow } from "../lib/delivery/record";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function seed(payload: object | null) {
  const msg = crypto.randomUUID();
  const delivery = crypto.randomUUID();
  const { ws, dest } = await insertWorkspaceAndDestination(pool);
  await pool.query(
    "INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload) VALUES ($1, $2, $3, 'track', 'u1', now(), $4)",
    [msg, ws, `m-${msg}`, payload === null ? null : JSON.stringify(payload)],
  );
  await pool.query("INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id) VALUES ($1, $2, $3, $4)", [
    delivery,
    ws,
    msg,
    dest,
  ]);
  const attempt: AttemptRow = {
    workspace_id: ws,
    delivery_id: delivery,
    destination_id: dest,
    message_row_id: msg,
    message_id: `m-${msg}`,
    type: "track",
    user_id: "u1",
    url: "http://127.0.0.1:9/x",
    attempt_number: 1,
    started_at: new Date().toISOString(),
    duration_ms: 3,
    request_headers: { "content-type": "application/json" },
    request_body: '{"userId":"u1","event":"Secret"}',
    response_status: 200,
    response_headers: {},
    response_body: '{"echo":"u1"}',
    error_kind: null,
    error_text: null,
    outcome: "success",
    next_retry_at: null,
  };
  return { msg, delivery, attempt };
}

describe("recording an attempt", () => {
  it("keeps request and response bodies of a message that still has its data", async () => {
    const { msg, attempt } = await seed({ type: "track", userId: "u1" });
    await recordRound(pool, [attempt], []);
    const { rows } = await pool.query("SELECT request_body, response_body FROM attempts WHERE message_row_id = $1", [msg]);
    expect(rows).toEqual([{ request_body: attempt.request_body, response_body: attempt.response_body }]);
  });

  it("drops the bodies when a deletion request erased the message while the attempt was in flight", async () => {
    const { msg, attempt } = await seed(null);
    await recordRound(pool, [attempt], []);
    const { rows } = await pool.query(
      "SELECT request_body, response_body, response_status, user_id FROM attempts WHERE message_row_id = $1",
      [msg],
    );
    expect(rows).toEqual([{ request_body: null, response_body: null, response_status: 200, user_id: "u1" }]);
  });
});
