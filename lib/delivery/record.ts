import "server-only";
import type pg from "pg";
import { bareArray, column, hiddenIds, hiddenText, textArray } from "../platform/pg-arrays";

/** One row of the attempt log, ready to insert. */
export type AttemptRow = {
  workspace_id: string;
  delivery_id: string;
  destination_id: string;
  message_row_id: string;
  message_id: string;
  type: string;
  user_id: string | null;
  url: string;
  /** the URL requested when it differs from `url` (a rendered URL template); absent or null: `url` itself, or nothing sent */
  sent_to?: string | null;
  /** the method when not POST (docs/request-shape.md#method); absent or null: POST */
  method?: string | null;
  attempt_number: number;
  started_at: string;
  duration_ms: number;
  request_headers: Record<string, string>;
  /** JSON text as sent (never empty): it travels joined by a separator JSON cannot hold (lib/platform/pg-arrays.ts jsonTexts) */
  request_body: string | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  error_kind: string | null;
  error_text: string | null;
  outcome: string;
  next_retry_at: string | null;
  /** a batch's attempt (lib/delivery/batches.ts); absent or null: one event's */
  batch_id?: string | null;
};

/** The new state of one delivery after a round. */
export type DeliveryUpdate = {
  id: string;
  state: "pending" | "delivered" | "failed";
  pending_urls: string[];
  /** rounds made so far (unchanged when the round was deferred): the column is named attempt_count, it counts rounds */
  attempt_count: number;
  first_attempt_at: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
  last_status: number | null;
  delivered_at: string | null;
};

/**
 * Records a whole batch in ONE statement: every attempt row in one multi-row insert and every
 * delivery in one update. Each column travels as one array parameter (unnest), so the statement's
 * size does not depend on the number of rows, and neither the worker nor Postgres builds or parses a
 * JSON document of the batch (docs/webhooks.md#delivery-cost). Headers and request bodies, JSON texts,
 * travel joined by a separator (lib/platform/pg-arrays.ts jsonTexts); each row's headers become jsonb on their own.
 * A NULL that jsonTexts writes as the only element is an empty array, which unnest pads with NULL.
 * Exported for its plan test (test/delivery-record.int.test.ts).
 */
/** The deliveries' new states, one array parameter per column ($21–$30), and how a row takes one. */
const UPDATES = `unnest($21::uuid[], $22::text[], $23::text[], $24::int[], $25::timestamptz[], $26::timestamptz[], $27::timestamptz[],
            $28::text[], $29::int[], $30::timestamptz[])`;
const UPDATE_COLUMNS =
  "id, state, pending_urls, attempt_count, first_attempt_at, last_attempt_at, next_attempt_at, last_error, last_status, delivered_at";
const SET_FROM_UPDATE = `state = u.state, pending_urls = u.pending_urls::text[], attempt_count = u.attempt_count,
  first_attempt_at = u.first_attempt_at, last_attempt_at = COALESCE(u.last_attempt_at, d.last_attempt_at),
  next_attempt_at = u.next_attempt_at, last_error = u.last_error, last_status = u.last_status,
  delivered_at = u.delivered_at, updated_at = now(),
  -- a recorded round lets go of its claim; a contested delivery stays contested (lib/delivery/claims.ts)
  claimed_until = CASE WHEN d.claimed_until IS NULL THEN NULL ELSE '-infinity'::timestamptz END`;

export const RECORD_SQL = `
WITH logged AS (
  INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                        started_at, duration_ms, request_headers, request_body, response_status, response_headers, response_body,
                        error_kind, error_text, outcome, next_retry_at, batch_id, sent_to, method)
  SELECT x.workspace_id, x.delivery_id, x.destination_id, x.message_row_id, x.message_id, x.type, x.user_id, x.url, x.attempt_number,
         x.started_at, x.duration_ms, x.request_headers::jsonb,
         -- A deletion request may have erased the message while this attempt was in flight, or taken
         -- an event out of the batch it sent (the batch's stored body then gone, or rebuilt without
         -- it, so shorter: batches-erase.ts): then the log keeps the attempt's metadata but not the
         -- user's data. A batch's body is not sent again: the one stored is logged while its length
         -- is still the one sent (a length needs no decompression, and the body is copied as stored).
         CASE WHEN m.payload IS NULL THEN NULL
              WHEN x.batch_id IS NOT NULL THEN CASE WHEN b.bytes = x.request_bytes THEN b.body END
              ELSE x.request_body END,
         x.response_status, x.response_headers::jsonb,
         CASE WHEN m.payload IS NULL THEN NULL ELSE x.response_body END,
         x.error_kind, x.error_text, x.outcome, x.next_retry_at, x.batch_id, x.sent_to, x.method
  FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[],
              $10::timestamptz[], $11::int[], string_to_array(${hiddenText(12)}, E'\\x1e', ''), string_to_array(${hiddenText(13)}, E'\\x1e', ''), $14::int[],
              string_to_array(${hiddenText(15)}, E'\\x1e', ''), $16::text[], $17::text[], $18::text[], $19::text[], $20::timestamptz[],
              -- the attempt's batch, the rendered URL of a templated one, a method other than POST and a
              -- batch attempt's body length: last, after the deliveries' columns
              $31::uuid[], $32::text[], $33::text[], $34::int[])
    AS x(workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
         started_at, duration_ms, request_headers, request_body, response_status, response_headers, response_body,
         error_kind, error_text, outcome, next_retry_at, batch_id, sent_to, method, request_bytes)
  -- their messages and batches by primary key, the ids hidden as the deliveries' below
  LEFT JOIN messages m ON m.id = x.message_row_id AND m.id = ANY(${hiddenIds(4)})
  LEFT JOIN delivery_batches b ON b.id = x.batch_id AND b.id = ANY(${hiddenIds(31)})
  RETURNING 1
)
UPDATE deliveries d SET ${SET_FROM_UPDATE}
FROM ${UPDATES}
  AS u(${UPDATE_COLUMNS})
-- The ids again as an index condition: without it the planner may hash the batch's rows and
-- seq-scan all of deliveries to join them, a cost that grows with the table
-- (docs/decisions/0011-delivery-batch-statements.md); hidden from the planner (pg-arrays.ts
-- hiddenIds), or a plan made with hundreds of them scans a table of up to ~100,000 rows anyway.
WHERE d.id = u.id AND d.id = ANY(${hiddenIds(21)})`;

/**
 * RECORD_SQL for rounds that sent batches (lib/delivery/batches.ts): in the same statement, each
 * batch's other members take their lead's update, which the statement already carries ($21–$30);
 * each member travels as its id and the position of its lead's update ($35, $36), not as a copy of
 * the update. The members never include a delivery the main update sets (a member is not its
 * batch's lead, and only leads and lone deliveries have rounds).
 */
export const RECORD_WITH_MEMBERS_SQL = RECORD_SQL.replace(
  "WITH logged AS (",
  `WITH members AS (
  UPDATE deliveries d SET ${SET_FROM_UPDATE}
  FROM unnest($35::uuid[], $36::int[]) AS m(id, lead)
  JOIN ${UPDATES} WITH ORDINALITY
    AS u(${UPDATE_COLUMNS}, n)
    ON u.n = m.lead
  WHERE d.id = m.id AND d.id = ANY(${hiddenIds(35)})
  RETURNING 1
), logged AS (`,
);

/** The statement's parameters: one array per column (lib/platform/pg-arrays.ts). */
export function recordParams(attempts: readonly AttemptRow[], updates: readonly DeliveryUpdate[]): string[] {
  const a = attempts;
  const u = updates;
  // The attempts of one request (its URLs in one round) share its headers object: stringified once.
  const requestHeaders: string[] = [];
  for (let i = 0; i < a.length; i++)
    requestHeaders.push(
      i > 0 && a[i].request_headers === a[i - 1].request_headers ? requestHeaders[i - 1] : JSON.stringify(a[i].request_headers),
    );
  return [
    column(a, (r) => r.workspace_id, "bare"),
    column(a, (r) => r.delivery_id, "bare"),
    column(a, (r) => r.destination_id, "bare"),
    column(a, (r) => r.message_row_id, "bare"),
    column(a, (r) => r.message_id, "text"),
    column(a, (r) => r.type, "text"),
    column(a, (r) => r.user_id, "text"),
    column(a, (r) => r.url, "text"),
    column(a, (r) => r.attempt_number, "bare"),
    column(a, (r) => r.started_at, "bare"),
    column(a, (r) => r.duration_ms, "bare"),
    column(requestHeaders, (h) => h, "json"),
    // a batch's body is the one its batch stores: only its length travels ($34)
    column(a, (r) => (r.batch_id ? null : r.request_body), "json"),
    column(a, (r) => r.response_status, "bare"),
    column(a, (r) => (r.response_headers === null ? null : JSON.stringify(r.response_headers)), "json"),
    column(a, (r) => r.response_body, "text"),
    column(a, (r) => r.error_kind, "text"),
    column(a, (r) => r.error_text, "text"),
    column(a, (r) => r.outcome, "text"),
    column(a, (r) => r.next_retry_at, "bare"),
    column(u, (r) => r.id, "bare"),
    column(u, (r) => r.state, "text"),
    // each delivery's pending URLs as a text[] literal of their own, cast per row
    column(u, (r) => (r.pending_urls.length === 0 ? "{}" : textArray(r.pending_urls)), "text"),
    column(u, (r) => r.attempt_count, "bare"),
    column(u, (r) => r.first_attempt_at, "bare"),
    column(u, (r) => r.last_attempt_at, "bare"),
    column(u, (r) => r.next_attempt_at, "bare"),
    column(u, (r) => r.last_error, "text"),
    column(u, (r) => r.last_status, "bare"),
    column(u, (r) => r.delivered_at, "bare"),
    column(a, (r) => r.batch_id ?? null, "bare"),
    column(a, (r) => r.sent_to ?? null, "text"),
    column(a, (r) => r.method ?? null, "text"),
    column(a, (r) => (r.batch_id && r.request_body !== null ? Buffer.byteLength(r.request_body, "utf8") : null), "bare"),
  ];
}

/**
 * Records rounds; `members`, by lead id, the other members of the batches some of them sent, which
 * take their lead's update (RECORD_WITH_MEMBERS_SQL).
 */
export async function recordRound(
  db: Pick<pg.PoolClient, "query">,
  attempts: AttemptRow[],
  updates: DeliveryUpdate[],
  members: ReadonlyMap<string, readonly string[]> | null = null,
): Promise<void> {
  if (attempts.length === 0 && updates.length === 0) return;
  const values = recordParams(attempts, updates);
  if (!members || members.size === 0) {
    await db.query({ name: "delivery-record", text: RECORD_SQL, values });
    return;
  }
  const ids: string[] = [];
  const leads: number[] = [];
  for (let i = 0; i < updates.length; i++) {
    const of = members.get(updates[i].id);
    if (!of) continue;
    for (const id of of) {
      ids.push(id);
      leads.push(i + 1);
    }
  }
  values.push(bareArray(ids), bareArray(leads));
  await db.query({ text: RECORD_WITH_MEMBERS_SQL, values });
}

/** Postgres text and jsonb cannot hold NUL; receivers can send anything. */
export const pgSafe = (s: string) => (s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s);
