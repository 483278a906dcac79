import "server-only";
import type pg from "pg";

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
  attempt_number: number;
  started_at: string;
  duration_ms: number;
  request_headers: Record<string, string>;
  request_body: string | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  error_kind: string | null;
  error_text: string | null;
  outcome: string;
  next_retry_at: string | null;
};

/** The new state of one delivery after a round. */
export type DeliveryUpdate = {
  id: string;
  state: "pending" | "delivered" | "failed";
  pending_urls: string[];
  /** rounds made so far (unchanged when the round was deferred) */
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
 * delivery in one update. Both travel as a single JSON parameter each (jsonb_to_recordset), so the
 * statement's size does not depend on the number of rows.
 */
const SQL = `
WITH logged AS (
  INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                        started_at, duration_ms, request_headers, request_body, response_status, response_headers, response_body,
                        error_kind, error_text, outcome, next_retry_at)
  SELECT x.workspace_id, x.delivery_id, x.destination_id, x.message_row_id, x.message_id, x.type, x.user_id, x.url, x.attempt_number,
         x.started_at, x.duration_ms, x.request_headers,
         -- A deletion request may have erased the message while this attempt was in flight: then the
         -- log keeps the attempt's metadata but not the user's data.
         CASE WHEN m.payload IS NULL THEN NULL ELSE x.request_body END,
         x.response_status, x.response_headers,
         CASE WHEN m.payload IS NULL THEN NULL ELSE x.response_body END,
         x.error_kind, x.error_text, x.outcome, x.next_retry_at
  FROM jsonb_to_recordset($1::jsonb) AS x(
    workspace_id uuid, delivery_id uuid, destination_id uuid, message_row_id uuid, message_id text, type text, user_id text,
    url text, attempt_number int, started_at timestamptz, duration_ms int, request_headers jsonb, request_body text,
    response_status int, response_headers jsonb, response_body text, error_kind text, error_text text, outcome text,
    next_retry_at timestamptz)
  LEFT JOIN messages m ON m.id = x.message_row_id
  RETURNING 1
)
UPDATE deliveries d SET
  state = u.state,
  pending_urls = ARRAY(SELECT jsonb_array_elements_text(u.pending_urls)),
  attempt_count = u.attempt_count,
  first_attempt_at = u.first_attempt_at,
  last_attempt_at = COALESCE(u.last_attempt_at, d.last_attempt_at),
  next_attempt_at = u.next_attempt_at,
  last_error = u.last_error,
  last_status = u.last_status,
  delivered_at = u.delivered_at,
  updated_at = now()
FROM jsonb_to_recordset($2::jsonb) AS u(
  id uuid, state text, pending_urls jsonb, attempt_count int, first_attempt_at timestamptz, last_attempt_at timestamptz,
  next_attempt_at timestamptz, last_error text, last_status int, delivered_at timestamptz)
WHERE d.id = u.id`;

export async function recordRound(db: Pick<pg.PoolClient, "query">, attempts: AttemptRow[], updates: DeliveryUpdate[]): Promise<void> {
  if (attempts.length === 0 && updates.length === 0) return;
  await db.query(SQL, [JSON.stringify(attempts), JSON.stringify(updates)]);
}

/** Postgres text and jsonb cannot hold NUL; receivers can send anything. */
export const pgSafe = (s: string) => (s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s);
