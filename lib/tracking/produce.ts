import "server-only";
import type pg from "pg";
import { column } from "../platform/pg-arrays";
import type { NormalisedMessage } from "./normalise";
import type { PlanVerdict } from "./plan-check";
import { newRowId, rowIdSql } from "./row-ids";

type Queryable = Pick<pg.PoolClient, "query">;

/**
 * The message producer: every statement that inserts messages is here, each with ids from the one
 * row-id scheme (row-ids.ts), and one-producer.test.ts keeps it so. Three shapes of the same write:
 *   - insertMessage: one message Eventrail makes itself (a test-send, a deletion notice);
 *   - ingestMessagesCte: a Tracking API request's messages, as the CTE that the ingest statement
 *     (persist.ts) routes and enqueues in the same round trip (docs/architecture.md#ingest-statement);
 *   - insertAudienceIdentifies: a chunk of an audience sync's identifies, made in Postgres from the
 *     lane's diff (docs/audiences.md#how-a-sync-runs).
 */
export type NewMessage = {
  workspaceId: string;
  /** null for a message not received through a source (a test-send) */
  sourceId: string | null;
  origin: "test" | "deletion";
  /** the deletion request (or audience sync) that made it */
  originRef?: string | null;
  messageId: string;
  type: string;
  userId: string | null;
  anonymousId?: string | null;
  event?: string | null;
  timestamp: Date | string;
  sentAt?: Date | string | null;
  /** now (the transaction's time) when left out */
  receivedAt?: Date | string | null;
  /** the stored message, in the Segment shape */
  payload: object;
};

/**
 * Inserts one message in the caller's transaction and returns its row id, or the id of the one
 * already stored with the same (source, messageId): a message is stored once per source.
 */
export async function insertMessage(client: Queryable, m: NewMessage): Promise<string> {
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO messages (id, workspace_id, source_id, origin, origin_ref, message_id, type, user_id, anonymous_id, event,
                           timestamp, sent_at, received_at, payload)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13::timestamptz, now()), $14)
     ON CONFLICT (source_id, message_id) DO NOTHING
     RETURNING id`,
    [
      newRowId(),
      m.workspaceId,
      m.sourceId,
      m.origin,
      m.originRef ?? null,
      m.messageId,
      m.type,
      m.userId,
      m.anonymousId ?? null,
      m.event ?? null,
      m.timestamp,
      m.sentAt ?? null,
      m.receivedAt ?? null,
      JSON.stringify(m.payload),
    ],
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  const existing = await client.query<{ id: string }>("SELECT id FROM messages WHERE source_id = $1 AND message_id = $2", [
    m.sourceId,
    m.messageId,
  ]);
  return existing.rows[0].id;
}

/**
 * The ingest statement's `new_messages` CTE: a request's messages as one array parameter per column
 * (unnest; messageColumns gives them, in the parameter numbers below) and their payloads as one
 * text that Postgres splits. The column is json: Postgres keeps each payload's text as written, so
 * nested objects keep the client's key order (docs/tracking-api.md#fidelity). Rows whose (source,
 * messageId) exists are skipped and not returned (exact dedupe). `guard` is a boolean SQL
 * expression evaluated once: when false, nothing is inserted.
 */
export const ingestMessagesCte = (guard: string) => `new_messages AS (
    INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event,
                          "timestamp", original_timestamp, sent_at, received_at, payload, violations, blocked)
    SELECT r.i, $1, $2, 'api', r.m, r.t, r.u, r.a, r.e, r.ts, r.ot, r.sa, $3, r.p::json, r.v::json, coalesce(r.b, false)
      FROM unnest($19::uuid[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
                  $16::timestamptz[], $17::timestamptz[], $18::timestamptz[], string_to_array($4, E'\\x1e'),
                  string_to_array($20, E'\\x1e', ''), $21::boolean[]) AS r(i, m, t, u, a, e, ts, ot, sa, p, v, b)
     WHERE ${guard}
    ON CONFLICT (source_id, message_id) DO NOTHING
    RETURNING id
  )`;

/**
 * A request's messages as ingestMessagesCte's parallel arrays (its parameters $19, $11–$18, $4, $20
 * and $21), each row with its id from newRowId. Postgres parses each payload once, as json input
 * (docs/architecture.md#ingest-statement). The tracking plan's verdicts ($20, $21) are null when no
 * message has one, the common case: unnest pads a null array with nulls.
 */
export function messageColumns(rows: { rowId: string; message: NormalisedMessage; verdict?: PlanVerdict | null }[]) {
  const m = rows.map((r) => r.message);
  const judged = rows.some((r) => r.verdict);
  return {
    violations: judged ? column(rows, (r) => (r.verdict ? JSON.stringify(r.verdict.violations) : null), "json") : null,
    blocked: judged ? column(rows, (r) => (r.verdict?.blocked ? "true" : "false"), "bare") : null,
    rowIds: column(rows, (r) => r.rowId, "bare"),
    messageIds: column(m, (x) => x.messageId, "text"),
    types: column(m, (x) => x.type, "text"),
    userIds: column(m, (x) => x.userId, "text"),
    anonymousIds: column(m, (x) => x.anonymousId, "text"),
    events: column(m, (x) => x.event, "text"),
    timestamps: column(m, (x) => x.timestamp, "bare"),
    originalTimestamps: column(m, (x) => x.originalTimestamp, "bare"),
    sentAts: column(m, (x) => x.sentAt, "bare"),
    payloads: column(m, (x) => x.payloadJson, "json"),
  };
}

/** What an audience sync's identifies share (sync-lane.ts sendLane). */
export type AudienceIdentifies = {
  workspaceId: string;
  syncId: string;
  propertyName: string;
  /** context.audience of every identify, as JSON text */
  context: string;
  /** the identifies' timestamp and receivedAt */
  now: string;
};

/**
 * Inserts the identifies of rows `from` < seq <= `to` of the lane's temp table audience_changes
 * whose change is one of `changes` (origin 'audience', origin_ref = the sync), in the caller's
 * transaction; returns each one's row id with its user's change, so the caller routes it. Payload
 * keys in alphabetical order, which is also the order jsonb keeps them in (docs/webhooks.md#payloads).
 */
export async function insertAudienceIdentifies<C extends string>(
  client: Queryable,
  ctx: AudienceIdentifies,
  range: { from: number; to: number; changes: C[] },
): Promise<{ id: string; change: C }[]> {
  const { rows } = await client.query<{ id: string; change: C }>(
    `WITH c AS MATERIALIZED (
       SELECT ${rowIdSql("r.a")} AS id, ${rowIdSql("r.b")}::text AS mid, r.user_id, r.change
       FROM (SELECT uuid_send(gen_random_uuid()) AS a, uuid_send(gen_random_uuid()) AS b, t.user_id, t.change
             FROM audience_changes t WHERE t.seq > $6 AND t.seq <= $7 AND t.change = ANY($8::text[]) ORDER BY t.seq) r
     ), inserted AS (
       INSERT INTO messages (id, workspace_id, origin, origin_ref, message_id, type, user_id, timestamp, received_at, payload)
       SELECT c.id, $1::uuid, 'audience', $2::text, c.mid, 'identify', c.user_id, $3::timestamptz, $3::timestamptz,
              jsonb_build_object('type', 'identify', 'userId', c.user_id, 'traits', jsonb_build_object($4::text, c.change <> 'exited'),
                                 'messageId', c.mid, 'timestamp', $5::text, 'receivedAt', $5::text, 'context', $9::jsonb)
       FROM c
     )
     SELECT c.id, c.change FROM c`,
    [ctx.workspaceId, ctx.syncId, ctx.now, ctx.propertyName, ctx.now, range.from, range.to, range.changes, ctx.context],
  );
  return rows;
}
