import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, insertWorkspaceAndDestination } from "./harness/pg";
import { RECORD, recordRound, type AttemptRow, type DeliveryUpdate } from "../lib/delivery/record";
import { toAttemptRow } from "../lib/delivery/attempt-row";
import { answeredOk, roundUpdate, rowsRead } from "./harness/delivery/plans";

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
  const attempt = answeredOk({
    workspace_id: ws,
    delivery_id: delivery,
    destination_id: dest,
    message_row_id: msg,
    message_id: `m-${msg}`,
    duration_ms: 3,
    request_body: '{"userId":"u1","event":"Secret"}',
    response_body: '{"echo":"u1"}',
  });
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

  it("keeps a batch attempt's body only while it is still the batch's: not once a deletion request erased or rebuilt it", async () => {
    const body = '[{"userId":"u1","event":"A"},{"userId":"gone","event":"B"}]';
    const cases = [
      { stored: body, logged: body },
      // erased while the attempt was in flight (batches-erase.ts), then rebuilt without the user's event
      { stored: null, logged: null },
      { stored: '[{"userId":"u1","event":"A"}]', logged: null },
    ];
    for (const c of cases) {
      const { msg, delivery, attempt } = await seed({ type: "track", userId: "u1" });
      const batch = crypto.randomUUID();
      await pool.query(
        `INSERT INTO delivery_batches (id, workspace_id, destination_id, state, lead_delivery_id, events, bytes, close_at, body, built_at)
         VALUES ($1, $2, $3, 'closed', $4, 2, octet_length(coalesce($5, '')), now(), $5, now())`,
        [batch, attempt.workspace_id, attempt.destination_id, delivery, c.stored],
      );
      await recordRound(pool, [{ ...attempt, request_body: body, user_id: null, batch_id: batch }], []);
      const { rows } = await pool.query("SELECT request_body, batch_id FROM attempts WHERE message_row_id = $1", [msg]);
      expect(rows, String(c.stored)).toEqual([{ request_body: c.logged, batch_id: batch }]);
    }
  });
});

// Each column travels as one array literal or separator-joined text (lib/platform/pg-arrays.ts): values
// that mean something in those encodings must come back as they went in.
describe("recording values the array encoding must not alter", () => {
  const tricky = 'a,b {c} "q" \\ back\\slash NULL 😀 end';

  it("stores quotes, backslashes, separators, braces, the text NULL, empty strings and emoji as given", async () => {
    const one = await seed({ type: "track", userId: "u1" });
    const two = await seed({ type: "track", userId: "u2" });
    const a1: AttemptRow = {
      ...one.attempt,
      message_id: tricky,
      user_id: "NULL",
      url: 'http://127.0.0.1:9/x?q="a,b"&b=\\',
      request_headers: { "x-note": tricky, "x-empty": "" },
      request_body: JSON.stringify({ text: `${tricky}\u001e\u0000\n\t` }),
      response_headers: { "content-type": 'text/plain; charset="utf-8"', "x-emoji": "😀" },
      response_body: `${tricky}\u001e{x}\n`,
      error_text: null,
    };
    const a2: AttemptRow = {
      ...two.attempt,
      user_id: null,
      response_status: null,
      response_headers: null,
      response_body: "",
      error_kind: "connection",
      error_text: `refused: ${tricky}`,
      outcome: "retry",
      next_retry_at: new Date(Date.now() + 60_000).toISOString(),
    };
    const later = new Date(Date.now() + 60_000).toISOString();
    await recordRound(
      pool,
      [a1, a2],
      [
        update(one.delivery, { state: "delivered", delivered_at: a1.started_at }),
        update(two.delivery, {
          pending_urls: ["http://127.0.0.1:9/a,b", 'http://127.0.0.1:9/"q"', "NULL", "http://127.0.0.1:9/{x}\\"],
          last_error: tricky,
          last_status: null,
          next_attempt_at: later,
        }),
      ],
    );
    const stored = async (msg: string) =>
      (
        await pool.query(
          `SELECT message_id, user_id, url, request_headers, request_body, response_status, response_headers, response_body,
                  error_kind, error_text, outcome, next_retry_at
             FROM attempts WHERE message_row_id = $1`,
          [msg],
        )
      ).rows;
    expect(await stored(one.msg)).toEqual([
      {
        message_id: a1.message_id,
        user_id: "NULL",
        url: a1.url,
        request_headers: a1.request_headers,
        request_body: a1.request_body,
        response_status: 200,
        response_headers: a1.response_headers,
        response_body: a1.response_body,
        error_kind: null,
        error_text: null,
        outcome: "success",
        next_retry_at: null,
      },
    ]);
    expect(await stored(two.msg)).toEqual([
      {
        message_id: a2.message_id,
        user_id: null,
        url: a2.url,
        request_headers: a2.request_headers,
        request_body: a2.request_body,
        response_status: null,
        response_headers: null,
        response_body: "",
        error_kind: "connection",
        error_text: a2.error_text,
        outcome: "retry",
        next_retry_at: new Date(a2.next_retry_at!),
      },
    ]);
    const { rows } = await pool.query(
      "SELECT id, state, pending_urls, last_error, last_status, next_attempt_at, delivered_at FROM deliveries WHERE id = ANY($1::uuid[]) ORDER BY state",
      [[one.delivery, two.delivery]],
    );
    expect(rows).toEqual([
      {
        id: one.delivery,
        state: "delivered",
        pending_urls: [],
        last_error: null,
        last_status: 200,
        next_attempt_at: null,
        delivered_at: new Date(a1.started_at),
      },
      {
        id: two.delivery,
        state: "pending",
        pending_urls: ["http://127.0.0.1:9/a,b", 'http://127.0.0.1:9/"q"', "NULL", "http://127.0.0.1:9/{x}\\"],
        last_error: tricky,
        last_status: null,
        next_attempt_at: new Date(later),
        delivered_at: null,
      },
    ]);
  });

  it("stores NULL response headers and bodies of a batch of one attempt (an empty joined text)", async () => {
    const { msg, delivery, attempt } = await seed({ type: "track", userId: "u1" });
    await recordRound(
      pool,
      [{ ...attempt, response_status: null, response_headers: null, response_body: null, error_kind: "timeout", error_text: "5 s" }],
      [update(delivery, { last_status: null, last_attempt_at: null })],
    );
    const { rows } = await pool.query("SELECT response_headers, response_body, request_body FROM attempts WHERE message_row_id = $1", [
      msg,
    ]);
    expect(rows).toEqual([{ response_headers: null, response_body: null, request_body: attempt.request_body }]);
  });

  it("stores what a receiver sent with NUL characters, replaced, and the rest as received", async () => {
    const { msg, delivery, attempt } = await seed({ type: "track", userId: "u1" });
    const row = toAttemptRow({
      workspaceId: attempt.workspace_id,
      deliveryId: delivery,
      destinationId: attempt.destination_id,
      messageRowId: msg,
      message: { messageId: attempt.message_id, type: "track", userId: "u1" },
      url: attempt.url,
      attemptNumber: 1,
      request: { headers: {}, loggedHeaders: { "content-type": "application/json" }, body: attempt.request_body! },
      attempt: {
        startedAt: new Date(),
        durationMs: 2,
        result: { kind: "response", status: 500, headers: { "x-nul": "a\u0000b", "x-ok": "😀" }, body: 'bad\u0000body \u001e,"' },
      },
      classification: { outcome: "retry", errorKind: "http", errorText: "HTTP 500 \u0000" },
      outcome: "retry",
      nextRetryAt: new Date(Date.now() + 1000),
    });
    await recordRound(pool, [row], [update(delivery, {})]);
    const { rows } = await pool.query("SELECT response_headers, response_body, error_text FROM attempts WHERE message_row_id = $1", [msg]);
    expect(rows).toEqual([
      { response_headers: { "x-nul": "a\uFFFDb", "x-ok": "😀" }, response_body: 'bad\uFFFDbody \u001e,"', error_text: "HTTP 500 \uFFFD" },
    ]);
  });
});

// The recording's cost must follow the batch, not the deliveries table: told the batch's size, the
// planner hashed the batch and seq-scanned every delivery to join it (docs/webhooks.md#delivery-cost).
describe("the recording statement's plan", () => {
  it("reads only the batch's deliveries and messages however many there are, with custom and generic plans", async () => {
    const { ws, dest } = await insertWorkspaceAndDestination(pool);
    await pool.query(
      `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload)
       SELECT md5('p' || g)::uuid, $1, 'p-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, 20000) g`,
      [ws],
    );
    const { rows } = await pool.query<{ id: string; message_row_id: string }>(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
       SELECT gen_random_uuid(), $1, md5('p' || g)::uuid, $2 FROM generate_series(1, 20000) g RETURNING id, message_row_id`,
      [ws, dest],
    );
    await pool.query("ANALYZE deliveries, messages");
    const batch = rows.slice(0, 500);
    const now = new Date().toISOString();
    const attempts: AttemptRow[] = batch.map((d) =>
      answeredOk({
        workspace_id: ws,
        delivery_id: d.id,
        destination_id: dest,
        message_row_id: d.message_row_id,
        message_id: "p",
        started_at: now,
      }),
    );
    const params = RECORD.values({ attempts, updates: batch.map((d) => update(d.id, { state: "delivered", delivered_at: now })) });
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(`PREPARE record_round AS ${RECORD.text}`);
      const literals = params.map((p) => client.escapeLiteral(p)).join(", ");
      for (const mode of ["force_custom_plan", "force_generic_plan"]) {
        await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
        const plan = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE record_round(${literals})`);
        expect(rowsRead(plan, "deliveries"), `${mode}: deliveries`).toBeLessThanOrEqual(batch.length);
        expect(rowsRead(plan, "messages"), `${mode}: messages`).toBeLessThanOrEqual(batch.length);
      }
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});

const update = (id: string, over: Partial<DeliveryUpdate>): DeliveryUpdate => ({
  ...roundUpdate(id),
  state: "pending",
  delivered_at: null,
  ...over,
});
