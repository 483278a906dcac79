import "server-only";
import type pg from "pg";
import { columnValues, columns, type InputRef } from "../platform/pg-columns";
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

/** One of a request's messages as the ingest statement stores it: its row id and, when a tracking plan judged it, the verdict. */
export type IngestRow = { rowId: string; message: NormalisedMessage; verdict?: PlanVerdict | null };

/**
 * A request's messages as the ingest statement's columns (lib/platform/pg-columns.ts), named as the
 * `messages` table's: one array parameter each, the payloads (and the tracking plan's violations) as
 * one separated text that Postgres splits, each payload parsed once, as json input
 * (docs/architecture.md#ingest-statement). `blocked` null (not judged) is stored false.
 */
export const INGEST_MESSAGE_COLUMNS = columns<IngestRow>()({
  id: ["uuid", (r) => r.rowId],
  message_id: ["text", (r) => r.message.messageId],
  type: ["text", (r) => r.message.type],
  user_id: ["text", (r) => r.message.userId],
  anonymous_id: ["text", (r) => r.message.anonymousId],
  event: ["text", (r) => r.message.event],
  timestamp: ["timestamptz", (r) => r.message.timestamp],
  original_timestamp: ["timestamptz", (r) => r.message.originalTimestamp],
  sent_at: ["timestamptz", (r) => r.message.sentAt],
  payload: ["json", (r) => r.message.payloadJson],
  violations: ["json", (r) => (r.verdict ? JSON.stringify(r.verdict.violations) : null)],
  blocked: ["boolean", (r) => r.verdict?.blocked ?? null],
});

/** What ingestMessagesCte reads of the request's own values (the statement's one-per-call columns). */
export type IngestCallRef = { param(name: "workspace_id" | "source_id" | "received_at"): string };

/**
 * The ingest statement's `new_messages` CTE: a request's messages from INGEST_MESSAGE_COLUMNS
 * (`messages`, their unnest) and the request's workspace, source and receipt time (`call`). The
 * payload column is json: Postgres keeps each payload's text as written, so nested objects keep the
 * client's key order (docs/tracking-api.md#fidelity). Rows whose (source, messageId) exists are
 * skipped and not returned (exact dedupe). `guard` is a boolean SQL expression evaluated once: when
 * false, nothing is inserted.
 */
export const ingestMessagesCte = (
  guard: string,
  call: IngestCallRef,
  messages: InputRef<typeof INGEST_MESSAGE_COLUMNS>,
) => `new_messages AS (
    INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event,
                          "timestamp", original_timestamp, sent_at, received_at, payload, violations, blocked)
    SELECT r.id, ${call.param("workspace_id")}, ${call.param("source_id")}, 'api', r.message_id, r.type, r.user_id, r.anonymous_id, r.event,
           r.timestamp, r.original_timestamp, r.sent_at, ${call.param("received_at")}, r.payload::json, r.violations::json, coalesce(r.blocked, false)
      FROM ${messages.unnest("r")}
     WHERE ${guard}
    ON CONFLICT (source_id, message_id) DO NOTHING
    RETURNING id
  )`;

/** A request's messages as the ingest statement's parameters, by column (bench:tracking-cpu, tests). */
export const messageColumns = (rows: readonly IngestRow[]) => columnValues(INGEST_MESSAGE_COLUMNS, rows);

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
