import "server-only";
import type pg from "pg";
import { column } from "../platform/pg-arrays";
import { columns, statement } from "../platform/pg-columns";
import { SAFETY_DELAY_S } from "./policy";
import type { LoadedDelivery } from "./load";
import { roundUrls } from "./plan";

/**
 * Interrupted rounds (docs/webhooks.md#interrupted-rounds): a batch's round whose claim ran out
 * before the round was recorded — its worker was killed, or lost the database, after building the
 * body and perhaps sending it. The next job that claims the same round sends it again, and first logs
 * the interrupted one: an attempt per URL of the round, of kind `interrupted`, with the round's number
 * and the stored body, since the receiver may have had it. A single event's round has no claim: its
 * job's retry by pg-boss tells instead (logInterruptedSingles). So a request the receiver saw twice is
 * two attempts in the log, not one.
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

/**
 * A single event's round that an earlier run of its job may have sent (docs/webhooks.md#interrupted-rounds):
 * a single carries no claim, so its job tells (lanes.ts resumedDeliveries). `since`: when that job
 * was created; `urls` and `body`, the round's.
 */
export type ResumedSingle = { delivery: LoadedDelivery; urls: string[]; body: string; since: Date };

/** One URL of a resumed single's round, as the statement below reads it. */
type ResumedRow = ResumedSingle & { url: string };

const RESUMED_COLUMNS = columns<ResumedRow>()({
  delivery_id: ["uuid", (r) => r.delivery.id],
  url: ["text", (r) => r.url],
  body: ["text", (r) => r.body],
  since: ["timestamptz", (r) => r.since.toISOString()],
  error_text: ["text", () => INTERRUPTED_TEXT],
});

/**
 * Exported for its test. An attempt per URL for each delivery still pending and not written since its
 * job was created: a job is created in the transaction that writes its deliveries (ingest, a recorded
 * round's retry, a batch's late rounds' safety job), so a run that recorded anything of it — an
 * attempt, a deferral, a throttle — left it newer; one untouched was never recorded, and its round may
 * have been sent. (`updated_at` is kept to the millisecond, the job's time to the microsecond.) Logged
 * at the job's creation: a safety job's round was in flight then, a retried job's went after it.
 */
export const INTERRUPTED_SINGLES = statement(
  { rows: RESUMED_COLUMNS },
  ({ rows }) => `
INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                      started_at, duration_ms, request_headers, request_body, error_kind, error_text, outcome)
SELECT d.workspace_id, d.id, d.destination_id, d.message_row_id, m.message_id, m.type, NULL, x.url, d.attempt_count + 1,
       x.since, 0, '{}'::jsonb,
       -- none once a deletion request erased the message
       CASE WHEN m.payload IS NULL THEN NULL ELSE x.body END,
       'interrupted', x.error_text, 'retry'
  FROM ${rows.unnest("x")}
  JOIN deliveries d ON d.id = x.delivery_id
  JOIN messages m ON m.id = d.message_row_id
 WHERE d.state = 'pending' AND d.updated_at <= x.since + interval '1 millisecond'`,
);

/** Logs the interrupted rounds among resumed single deliveries, before they are sent again. */
export async function logInterruptedSingles(db: Pick<pg.Pool, "query">, singles: readonly ResumedSingle[]): Promise<void> {
  if (singles.length === 0) return;
  const rows = singles.flatMap((s) => s.urls.map((url) => ({ ...s, url })));
  await db.query(INTERRUPTED_SINGLES.text, INTERRUPTED_SINGLES.values({ rows }));
}

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
