/**
 * Erasure covers every store (docs/deletions.md#every-store). The stores are listed from the
 * database's own catalog, not by hand: every table is either a store of event data, which this test
 * fills with the user's events before the deletion request, or named below as holding none, with the
 * reason. A new table fails the test until it is one or the other. After the request, no table of
 * the database (the queue's included) holds a byte of the user's events, and those of another user
 * are still there.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./harness/pg";
import { seed } from "./harness/deletions/seed";

/** Tables that hold event data: each is filled with the user's events below, and must hold them before the erasure. */
const STORES = [
  "messages",
  "delivery_batches",
  "delivery_batch_members",
  "attempts",
  "source_calls",
  "captured_requests",
  "profiles",
] as const;

/**
 * Tables that hold no event data, with the reason: still scanned after the erasure like every other.
 * Identifiers only (a userId as a key, ids of rows) are not event data: the user's id is checked on its own below.
 */
const NO_EVENT_DATA: Record<string, string> = {
  _prisma_migrations: "the migrations applied",
  alert_settings: "a workspace's alert thresholds",
  api_tokens: "token hashes and names",
  audience_destinations: "which destinations an audience syncs to",
  audience_members: "an audience's userIds (deleted with the user; checked below by userId)",
  audience_sources: "which sources an audience reads",
  audience_syncs: "counts of a sync",
  audiences: "an audience's definition",
  audit_events: "changes to settings, by whom",
  backfills: "a backfill's range and cursor (row ids)",
  capture_bins: "a capture URL's settings; its requests are captured_requests",
  deletion_requests: "the userIds to erase and what was erased: the record of the erasure",
  deliveries: "a message's delivery to a destination: its state and times; the event is its message's",
  destination_sources: "connections",
  destinations: "a destination's settings",
  endpoint_alerts: "an endpoint's health",
  identity_links: "anonymousId → userId (deleted with the user; checked below by userId)",
  invitations: "invited e-mail addresses",
  memberships: "who belongs to a workspace",
  metric_instances: "process metrics",
  rate_limit_state: "a destination's token bucket",
  rate_limits: "login and API rate-limit counters",
  rejection_counts: "counts of refused calls per hour",
  sessions: "dashboard sessions",
  setup_codes: "the first-run code",
  sources: "a source's settings",
  tracking_plans: "a plan's rules (JSON Schemas) and modes; a call's violations are on its message",
  tracking_violation_kinds: "the kinds of violation a plan has seen (event name, rule, path): no user's data",
  users: "dashboard accounts",
  workspaces: "workspace names",
};

/** The queue's own schema (pg-boss): jobs carry ids, never event data (lib/platform/queue.ts). */
const QUEUE_SCHEMA = "pgboss";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let client: pg.Pool;
let s: ReturnType<typeof seed>;
let lib: {
  requests: typeof import("../lib/deletions/requests");
  run: typeof import("../lib/deletions/run");
  runtime: typeof import("../lib/platform/runtime");
};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  lib = {
    requests: await import("../lib/deletions/requests"),
    run: await import("../lib/deletions/run"),
    runtime: await import("../lib/platform/runtime"),
  };
  client = new pg.Pool({ connectionString: db.url, max: 2 });
  s = seed(client);
});

afterAll(async () => {
  await lib?.runtime.closeRuntime();
  await client?.end();
  await db?.drop();
});

type Table = { schema: string; name: string };

/** Every table of the database, from its catalog (partitions scanned through their parent). */
async function tables(): Promise<Table[]> {
  const { rows } = await client.query<Table>(
    `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
      ORDER BY 1, 2`,
  );
  return rows;
}

/**
 * The tables with a row holding `text`: each row as its text, in which a bytea column shows its
 * bytes as hex (a captured body) and JSON as written; so both the text and its hex are looked for.
 */
async function tablesHolding(text: string): Promise<string[]> {
  const hex = Buffer.from(text, "utf8").toString("hex");
  const holding: string[] = [];
  for (const t of await tables()) {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${t.schema}"."${t.name}" x WHERE strpos(x::text, $1) > 0 OR strpos(x::text, $2) > 0`,
      [text, hex],
    );
    if (rows[0].n > 0) holding.push(t.schema === "public" ? t.name : `${t.schema}.${t.name}`);
  }
  return holding.sort();
}

const token = () => crypto.randomBytes(6).toString("hex");

describe("erasure covers every store", () => {
  it("every table is a store this test fills, or holds no event data", async () => {
    const unlisted = (await tables())
      .filter((t) => t.schema === "public")
      .map((t) => t.name)
      .filter((n) => !(STORES as readonly string[]).includes(n) && !(n in NO_EVENT_DATA));
    expect(unlisted, "a new table: fill it in this test if it holds event data, or name it in NO_EVENT_DATA").toEqual([]);
  });

  it("after a deletion request, no table holds any of the user's events, capture URLs included; another user's stay", async () => {
    // The user's events carry SECRET, the other user's KEPT: a marker each, found wherever a copy of the events went.
    const SECRET = `secret-${token()}`;
    const KEPT = `kept-${token()}`;
    const user = `erased-${token()}`;
    const anon = `anon-${token()}`;
    const other = `other-${token()}`;
    const ws = await s.workspace();
    const web = await s.source(ws, "Web");
    const dest = await s.destination(ws, { name: "hooks", sourceIds: [web] });
    const props = (marker: string) => ({ note: marker });

    // Messages: delivered (with an attempt that logged the body and the answer), never delivered, anonymous.
    const delivered = await s.message(ws, { sourceId: web, userId: user, event: "Order Completed", properties: props(SECRET) });
    const dDelivered = await s.delivery(ws, delivered, dest);
    await client.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, response_status, response_body, outcome)
       VALUES ($1, $2, $3, $4, 'm', 'track', $5, 'http://127.0.0.1:9/hook', 1, now(), 12, '{}', $6, 200, $6, 'success')`,
      [ws, dDelivered, dest, delivered, user, JSON.stringify({ userId: user, properties: props(SECRET) })],
    );
    await s.message(ws, { sourceId: web, userId: user, type: "identify", properties: props(SECRET) });
    await s.message(ws, { sourceId: web, anonymousId: anon, type: "page", properties: props(SECRET) });
    await s.identityLink(ws, anon, user);
    await client.query(
      "INSERT INTO profiles (id, workspace_id, user_id, anonymous_ids, traits) VALUES (gen_random_uuid(), $1, $2, $3, $4)",
      [ws, user, [anon], JSON.stringify({ note: SECRET })],
    );
    await s.audienceMembers(ws, "vip", [user, other]);
    await s.sourceCall(web, { type: "track", userId: user, properties: props(SECRET) });

    // A batch built and sent (its stored body, its logged attempt) whose other member is the other user's,
    // and an open batch in which the user's delivery waits with its part, beside the other user's.
    const mine = await s.message(ws, { sourceId: web, userId: user, event: "Batched", properties: props(SECRET) });
    const theirs = await s.message(ws, { sourceId: web, userId: other, event: "Batched", properties: props(KEPT) });
    const [dMine, dTheirs] = [await s.delivery(ws, mine, dest, "pending"), await s.delivery(ws, theirs, dest, "pending")];
    const part = (u: string, marker: string) => JSON.stringify({ userId: u, properties: props(marker) });
    const body = `[${[part(user, SECRET), part(other, KEPT)].join(",")}]`;
    const sent = crypto.randomUUID();
    const [first, second] = [dMine, dTheirs].sort();
    await client.query(
      `INSERT INTO delivery_batches (id, workspace_id, destination_id, state, lead_delivery_id, events, bytes, close_at, body, built_at)
       VALUES ($1, $2, $3, 'closed', $4, 2, octet_length($5), now(), $5, now())`,
      [sent, ws, dest, first, first === dMine ? body : `[${[part(other, KEPT), part(user, SECRET)].join(",")}]`],
    );
    await client.query("INSERT INTO delivery_batch_members (delivery_id, batch_id, part) VALUES ($1, $3, NULL), ($2, $3, NULL)", [
      first,
      second,
      sent,
    ]);
    await client.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, response_status, outcome, batch_id)
       VALUES ($1, $2, $3, $4, 'b', 'track', NULL, 'http://127.0.0.1:9/hook', 1, now(), 12, '{}', $5, 503, 'retry', $6)`,
      [ws, first, dest, first === dMine ? mine : theirs, body, sent],
    );
    const waiting = await s.message(ws, { sourceId: web, userId: user, event: "Waiting", properties: props(SECRET) });
    const waitingOther = await s.message(ws, { sourceId: web, userId: other, event: "Waiting", properties: props(KEPT) });
    const [dWaiting, dWaitingOther] = [await s.delivery(ws, waiting, dest, "pending"), await s.delivery(ws, waitingOther, dest, "pending")];
    const open = crypto.randomUUID();
    await client.query(
      `INSERT INTO delivery_batches (id, workspace_id, destination_id, state, lead_delivery_id, events, bytes, close_at)
       VALUES ($1, $2, $3, 'open', $4, 2, 100, now() + interval '30 seconds')`,
      [open, ws, dest, [dWaiting, dWaitingOther].sort()[0]],
    );
    await client.query("INSERT INTO delivery_batch_members (delivery_id, batch_id, part) VALUES ($1, $3, $4), ($2, $3, $5)", [
      dWaiting,
      dWaitingOther,
      open,
      part(user, SECRET),
      part(other, KEPT),
    ]);

    // Capture URLs: the user's event as a webhook delivered it, the sent batch (both users' events,
    // found by its webhook-id), a Tracking API batch of the anonymous user's, a body cut at 1 MB, and
    // the other user's own event, which stays.
    const bin = `bin${token()}`;
    await client.query("INSERT INTO capture_bins (id, workspace_id) VALUES ($1, $2)", [bin, ws]);
    const capture = (body: string, headers: Record<string, string> = {}, truncated = false) =>
      client.query(
        `INSERT INTO captured_requests (bin_id, method, path, headers, body, body_size, truncated)
         VALUES ($1, 'POST', '/', $2, $3, $4, $5)`,
        [
          bin,
          JSON.stringify({ "content-type": "application/json", ...headers }),
          Buffer.from(body, "utf8"),
          Buffer.byteLength(body),
          truncated,
        ],
      );
    await capture(JSON.stringify({ type: "track", userId: user, properties: props(SECRET) }));
    await capture(body, { "webhook-id": `batch_${sent}` });
    await capture(JSON.stringify({ batch: [{ type: "page", anonymousId: anon, properties: props(SECRET) }] }));
    await capture(`[${part(user, SECRET)},{"userId":"${other}","prop`, {}, true);
    await capture(JSON.stringify({ type: "track", userId: other, properties: props(KEPT), friend: user }));

    expect(await tablesHolding(SECRET)).toEqual([...STORES].sort());

    const req = await lib.requests.createDeletionRequest({
      actor: { type: "operator", id: null, label: "test", address: null },
      workspaceId: ws,
      input: { userIds: [user] },
    });
    await lib.run.runDeletionRequest({ deletionRequestId: req.id, lastAttempt: false });
    const done = await lib.requests.getDeletionRequest({ workspaceId: ws, id: req.id });
    expect(done.status).toBe("completed");

    // No copy of the user's events anywhere, the queue's tables included.
    expect((await tables()).some((t) => t.schema === QUEUE_SCHEMA)).toBe(true);
    expect(await tablesHolding(SECRET)).toEqual([]);
    expect(done.users[0].erased.capturedRequests).toBe(4);
    // Their id stays only where it is the record of the erasure (the request, its audit entry, the
    // delete notices), a log row's metadata, or another user's event naming it (docs/deletions.md).
    expect(await tablesHolding(user)).toEqual(["attempts", "audit_events", "captured_requests", "deletion_requests", "messages"]);
    const { rows: captured } = await client.query<{ body: Buffer }>("SELECT body FROM captured_requests WHERE bin_id = $1", [bin]);
    expect(captured.map((r) => JSON.parse(r.body.toString("utf8")))).toEqual([
      { type: "track", userId: other, properties: props(KEPT), friend: user },
    ]);
    const { rows: notices } = await client.query("SELECT count(*)::int AS n FROM messages WHERE user_id = $1 AND origin <> 'deletion'", [
      user,
    ]);
    expect(notices[0].n).toBe(0);
    // The other user's events: their own messages, their part waiting in the open batch, their captured event.
    expect(await tablesHolding(KEPT)).toEqual(["captured_requests", "delivery_batch_members", "messages"]);
  });
});
