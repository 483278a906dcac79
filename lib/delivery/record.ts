import "server-only";
import type pg from "pg";
import { textArray } from "../platform/pg-arrays";
import { columns, type InputRef, statement } from "../platform/pg-columns";

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

/** An attempt row's columns, as the recording's `x` reads them (their types say how each travels: pg-columns.ts). */
export const ATTEMPT_COLUMNS = columns<AttemptRow>()({
  workspace_id: ["uuid", (r) => r.workspace_id],
  delivery_id: ["uuid", (r) => r.delivery_id],
  destination_id: ["uuid", (r) => r.destination_id],
  message_row_id: ["uuid", (r) => r.message_row_id],
  message_id: ["text", (r) => r.message_id],
  type: ["text", (r) => r.type],
  user_id: ["text", (r) => r.user_id],
  url: ["text", (r) => r.url],
  attempt_number: ["int", (r) => r.attempt_number],
  started_at: ["timestamptz", (r) => r.started_at],
  duration_ms: ["int", (r) => r.duration_ms],
  request_headers: ["json", (r, i) => headersText(r.request_headers, i)],
  // a batch's body is the one its batch stores: only its length travels (request_bytes)
  request_body: ["json", (r) => (r.batch_id ? null : r.request_body)],
  response_status: ["int", (r) => r.response_status],
  response_headers: ["json", (r) => (r.response_headers === null ? null : JSON.stringify(r.response_headers))],
  response_body: ["text", (r) => r.response_body],
  error_kind: ["text", (r) => r.error_kind],
  error_text: ["text", (r) => r.error_text],
  outcome: ["text", (r) => r.outcome],
  next_retry_at: ["timestamptz", (r) => r.next_retry_at],
  batch_id: ["uuid", (r) => r.batch_id ?? null],
  sent_to: ["text", (r) => r.sent_to ?? null],
  method: ["text", (r) => r.method ?? null],
  request_bytes: ["int", (r) => (r.batch_id && r.request_body !== null ? Buffer.byteLength(r.request_body, "utf8") : null)],
});

/** A delivery update's columns, as the recording's `u` reads them. */
export const UPDATE_COLUMNS = columns<DeliveryUpdate>()({
  id: ["uuid", (r) => r.id],
  state: ["text", (r) => r.state],
  // each delivery's pending URLs as a text[] literal of their own, cast per row
  pending_urls: ["text", (r) => (r.pending_urls.length === 0 ? "{}" : textArray(r.pending_urls))],
  attempt_count: ["int", (r) => r.attempt_count],
  first_attempt_at: ["timestamptz", (r) => r.first_attempt_at],
  last_attempt_at: ["timestamptz", (r) => r.last_attempt_at],
  next_attempt_at: ["timestamptz", (r) => r.next_attempt_at],
  last_error: ["text", (r) => r.last_error],
  last_status: ["int", (r) => r.last_status],
  delivered_at: ["timestamptz", (r) => r.delivered_at],
});

/** A batch's other member: its id and the position (from 1) of its lead's update, whose state it takes. */
export type MemberRow = { id: string; lead: number };
const MEMBER_COLUMNS = columns<MemberRow>()({ id: ["uuid", (r) => r.id], lead: ["int", (r) => r.lead] });

/**
 * The attempts of one request (its URLs in one round) share its headers object: stringified once,
 * the previous row's text reused (rows are encoded in order; the first row starts afresh).
 */
let lastHeaders: Record<string, string> | null = null;
let lastHeadersText = "";
function headersText(headers: Record<string, string>, i: number): string {
  if (i === 0 || headers !== lastHeaders) {
    lastHeaders = headers;
    lastHeadersText = JSON.stringify(headers);
  }
  return lastHeadersText;
}

const SET_FROM_UPDATE = `state = u.state, pending_urls = u.pending_urls::text[], attempt_count = u.attempt_count,
  first_attempt_at = u.first_attempt_at, last_attempt_at = COALESCE(u.last_attempt_at, d.last_attempt_at),
  next_attempt_at = u.next_attempt_at, last_error = u.last_error, last_status = u.last_status,
  delivered_at = u.delivered_at, updated_at = now(),
  -- a recorded round lets go of its claim; a contested delivery stays contested (lib/delivery/claims.ts)
  claimed_until = CASE WHEN d.claimed_until IS NULL THEN NULL ELSE '-infinity'::timestamptz END`;

type RecordRefs = { attempts: InputRef<typeof ATTEMPT_COLUMNS>; updates: InputRef<typeof UPDATE_COLUMNS> };

/**
 * The recording's insert of its attempt rows. `into` and `erasureCheck` make the variants
 * bench:attempt-indexes writes (copies of the table, without the join to messages that every copy
 * would pay alike); the product's is `attempts` with the check.
 */
export function attemptsInsert(attempts: InputRef<typeof ATTEMPT_COLUMNS>, opts: { into?: string; erasureCheck?: boolean } = {}): string {
  const messages =
    opts.erasureCheck === false
      ? "CROSS JOIN (SELECT '{}'::jsonb AS payload) m"
      : `LEFT JOIN messages m ON m.id = x.message_row_id AND m.id = ANY(${attempts.hiddenIds("message_row_id")})`;
  return `INSERT INTO ${opts.into ?? "attempts"} (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
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
  FROM ${attempts.unnest("x")}
  -- their messages and batches by primary key, the ids hidden as the deliveries' below
  ${messages}
  LEFT JOIN delivery_batches b ON b.id = x.batch_id AND b.id = ANY(${attempts.hiddenIds("batch_id")})
  RETURNING 1`;
}

/**
 * Records a whole batch in ONE statement: every attempt row in one multi-row insert and every
 * delivery in one update. Each column travels as one array parameter (unnest), so the statement's
 * size does not depend on the number of rows, and neither the worker nor Postgres builds or parses a
 * JSON document of the batch (docs/webhooks.md#delivery-cost). Headers and request bodies, JSON texts,
 * travel joined by a separator (lib/platform/pg-arrays.ts jsonTexts); each row's headers become jsonb on their own.
 * A NULL that jsonTexts writes as the only element is an empty array, which unnest pads with NULL.
 * `members`: the CTE that updates a batch's other members, when the rounds sent batches.
 */
function recordText({ attempts, updates }: RecordRefs, members = ""): string {
  return `
WITH ${members}logged AS (
  ${attemptsInsert(attempts)}
)
UPDATE deliveries d SET ${SET_FROM_UPDATE}
FROM ${updates.unnest("u")}
-- The ids again as an index condition: without it the planner may hash the batch's rows and
-- seq-scan all of deliveries to join them, a cost that grows with the table
-- (docs/decisions/0011-delivery-batch-statements.md); hidden from the planner (pg-arrays.ts
-- hiddenIds), or a plan made with hundreds of them scans a table of up to ~100,000 rows anyway.
WHERE d.id = u.id AND d.id = ANY(${updates.hiddenIds("id")})`;
}

/** Exported for its plan tests (test/delivery-record.int.test.ts, test/batch-statements.int.test.ts). */
export const RECORD = statement({ attempts: ATTEMPT_COLUMNS, updates: UPDATE_COLUMNS }, (refs) => recordText(refs));

/**
 * RECORD for rounds that sent batches (lib/delivery/batches.ts): in the same statement, each batch's
 * other members take their lead's update, which the statement already carries; each member travels
 * as its id and the position of its lead's update, not as a copy of the update. The members never
 * include a delivery the main update sets (a member is not its batch's lead, and only leads and lone
 * deliveries have rounds).
 */
export const RECORD_WITH_MEMBERS = statement(
  { attempts: ATTEMPT_COLUMNS, updates: UPDATE_COLUMNS, members: MEMBER_COLUMNS },
  ({ attempts, updates, members }) =>
    recordText(
      { attempts, updates },
      `members AS (
  UPDATE deliveries d SET ${SET_FROM_UPDATE}
  FROM ${members.unnest("m")}
  JOIN ${updates.unnest("u", { ordinality: "n" })} ON u.n = m.lead
  WHERE d.id = m.id AND d.id = ANY(${members.hiddenIds("id")})
  RETURNING 1
), `,
    ),
);

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
  if (!members || members.size === 0) {
    await db.query({ name: "delivery-record", text: RECORD.text, values: RECORD.values({ attempts, updates }) });
    return;
  }
  const rows: MemberRow[] = [];
  for (let i = 0; i < updates.length; i++) {
    const of = members.get(updates[i].id);
    if (of) for (const id of of) rows.push({ id, lead: i + 1 });
  }
  await db.query({ text: RECORD_WITH_MEMBERS.text, values: RECORD_WITH_MEMBERS.values({ attempts, updates, members: rows }) });
}

/** Postgres text and jsonb cannot hold NUL; receivers can send anything. */
export const pgSafe = (s: string) => (s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s);
