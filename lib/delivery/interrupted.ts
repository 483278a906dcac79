import "server-only";
import type pg from "pg";
import { column } from "../platform/pg-arrays";
import { SAFETY_DELAY_S } from "./policy";
import type { LoadedDelivery } from "./load";
import { roundUrls } from "./plan";

/**
 * Interrupted rounds (docs/webhooks.md#interrupted-rounds): a batch's round whose claim ran out
 * before the round was recorded — its worker was killed, or lost the database, after building the
 * body and perhaps sending it. The next job that claims the same round sends it again, and first logs
 * the interrupted one: an attempt per URL of the round, of kind `interrupted`, with the round's number
 * and the stored body, since the receiver may have had it. So a request the receiver saw twice is
 * always two attempts in the log, never one.
 */
export type InterruptedRound = { lead: LoadedDelivery; batchId: string; claimedUntil: Date };

export const INTERRUPTED_TEXT =
  "the worker sending this round stopped before recording an answer (killed, or cut off from the database); the request may have reached the receiver, and the round is sent again";

/** Exported for its test. */
export const INTERRUPTED_SQL = `
INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                      started_at, duration_ms, request_headers, request_body, error_kind, error_text, outcome, batch_id)
SELECT l.workspace_id, l.id, l.destination_id, l.message_row_id, m.message_id, m.type, NULL, x.url, l.attempt_count + 1,
       -- a batch's claim lasts SAFETY_DELAY_S (batches.ts CLAIM_S): the round started that long before it ran out
       x.claimed_until - make_interval(secs => ${SAFETY_DELAY_S}), 0, '{}'::jsonb,
       -- the body stored before anything was sent; none once a deletion request took a member out
       CASE WHEN m.payload IS NULL THEN NULL ELSE b.body END,
       'interrupted', $4, 'retry', b.id
  FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS x(batch_id, url, claimed_until)
  JOIN delivery_batches b ON b.id = x.batch_id
  JOIN deliveries l ON l.id = b.lead_delivery_id
  JOIN messages m ON m.id = l.message_row_id`;

/** Logs each interrupted round: one attempt per URL the round goes to. */
export async function logInterruptedRounds(db: Pick<pg.Pool, "query">, rounds: readonly InterruptedRound[]): Promise<void> {
  if (rounds.length === 0) return;
  const rows = rounds.flatMap((r) =>
    roundUrls(r.lead.targetUrls ?? r.lead.destination.urls, r.lead.pendingUrls).map((url) => ({ ...r, url })),
  );
  await db.query(INTERRUPTED_SQL, [
    column(rows, (r) => r.batchId, "bare"),
    column(rows, (r) => r.url, "text"),
    column(rows, (r) => r.claimedUntil.toISOString(), "bare"),
    INTERRUPTED_TEXT,
  ]);
}
