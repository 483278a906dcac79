import "server-only";
import { pool, withTransaction } from "../platform/db";
import { AppError, notFound } from "../platform/errors";
import {
  PAYLOAD_SEARCH_MAX_MESSAGES,
  type AttemptDetailDto,
  type AttemptDto,
  type AttemptFilter,
  type AttemptListQuery,
  type AttemptPageDto,
} from "./contract";
import { inLogDays } from "./attempt-days";

/** The WHERE clause for a workspace's attempts under a filter ($1 is the workspace). */
export function attemptWhere(workspaceId: string, f: AttemptFilter, alias = "a"): { sql: string; values: unknown[] } {
  const values: unknown[] = [workspaceId];
  const conds = [`${alias}.workspace_id = $1`];
  const add = (cond: (p: string) => string, v: unknown) => {
    values.push(v);
    conds.push(cond(`$${values.length}`));
  };
  if (f.destinationId) add((p) => `${alias}.destination_id = ${p}`, f.destinationId);
  if (f.outcome) add((p) => `${alias}.outcome = ${p}`, f.outcome);
  if (f.type) add((p) => `${alias}.type = ${p}`, f.type);
  if (f.userId) add((p) => `${alias}.user_id = ${p}`, f.userId);
  if (f.messageId) add((p) => `${alias}.message_id = ${p}`, f.messageId);
  // Their indexes are keyed by day first (attempt-days.ts): the lookup names the log's days.
  if (f.userId || f.messageId) conds.push(inLogDays(alias));
  if (f.url) add((p) => `${alias}.url = ${p}`, f.url);
  if (f.status !== undefined) add((p) => `${alias}.response_status = ${p}`, f.status);
  if (f.errorKind) add((p) => `${alias}.error_kind = ${p}`, f.errorKind);
  // The event name lives on the message: messages(workspace_id, event, timestamp) finds them, attempts(message_row_id) their attempts.
  if (f.event) add((p) => `${alias}.message_row_id IN (SELECT id FROM messages WHERE workspace_id = $1 AND event = ${p})`, f.event);
  // A payload search reads the messages received in its window (BRIN messages(received_at)), at
  // most the newest PAYLOAD_SEARCH_MAX_MESSAGES that match, then their attempts by attempts(message_row_id):
  // bounded by the window, whatever the log's size (docs/decisions/0080-payload-search.md).
  if (f.q && f.from && f.to) {
    values.push(`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, f.from, f.to);
    const [q, from, to] = [values.length - 2, values.length - 1, values.length].map((n) => `$${n}`);
    conds.push(
      `${alias}.message_row_id IN (SELECT id FROM messages WHERE workspace_id = $1 AND received_at >= ${from} AND received_at < ${to}` +
        ` AND payload::text ILIKE ${q} ORDER BY received_at DESC LIMIT ${PAYLOAD_SEARCH_MAX_MESSAGES})`,
    );
  }
  // A backfill's deliveries by deliveries(backfill_id, message_row_id), then their attempts by attempts(message_row_id).
  if (f.backfillId)
    add(
      (p) =>
        `${alias}.message_row_id IN (SELECT message_row_id FROM deliveries WHERE backfill_id = ${p}) AND ${alias}.delivery_id IN (SELECT id FROM deliveries WHERE backfill_id = ${p})`,
      f.backfillId,
    );
  if (f.from) add((p) => `${alias}.started_at >= ${p}`, f.from);
  if (f.to) add((p) => `${alias}.started_at < ${p}`, f.to);
  if (f.statusClass === "none") conds.push(`${alias}.response_status IS NULL`);
  else if (f.statusClass) {
    const base = Number(f.statusClass[0]) * 100;
    add((p) => `${alias}.response_status >= ${p}`, base);
    add((p) => `${alias}.response_status < ${p}`, base + 100);
  }
  return { sql: conds.join(" AND "), values };
}

const COLUMNS = `a.id, a.delivery_id, dl.replay_of, dl.backfill_id, a.destination_id, t.name AS destination_name, a.message_row_id, a.message_id, a.type,
  m.event, a.user_id, a.url, a.attempt_number, a.started_at, a.duration_ms, a.response_status, a.error_kind, a.error_text, a.outcome,
  a.next_retry_at, a.batch_id, b.events AS batch_events`;
/**
 * Each attempt with its destination's name, its delivery's replay link and its message's event name
 * (primary-key lookups per row).
 */
const FROM = `attempts a LEFT JOIN destinations t ON t.id = a.destination_id LEFT JOIN deliveries dl ON dl.id = a.delivery_id
  LEFT JOIN messages m ON m.id = a.message_row_id LEFT JOIN delivery_batches b ON b.id = a.batch_id`;
const DETAIL_COLUMNS = `${COLUMNS}, a.sent_to, a.method, a.request_headers, a.request_body, a.response_headers, a.response_body`;

type Row = {
  id: number | string;
  delivery_id: string;
  replay_of: string | null;
  backfill_id: string | null;
  destination_id: string;
  destination_name: string | null;
  message_row_id: string;
  message_id: string;
  type: string;
  event: string | null;
  user_id: string | null;
  url: string;
  attempt_number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  error_kind: string | null;
  error_text: string | null;
  outcome: AttemptDto["outcome"];
  next_retry_at: Date | null;
  batch_id: string | null;
  batch_events: number | null;
  sent_to?: string | null;
  method?: "PUT" | "PATCH" | null;
  request_headers?: Record<string, string>;
  request_body?: string | null;
  response_headers?: Record<string, string> | null;
  response_body?: string | null;
};

const toDto = (r: Row): AttemptDto => ({
  id: String(r.id),
  deliveryId: r.delivery_id,
  replayOf: r.replay_of,
  backfillId: r.backfill_id,
  destinationId: r.destination_id,
  destinationName: r.destination_name,
  messageRowId: r.message_row_id,
  messageId: r.message_id,
  type: r.type,
  event: r.event,
  userId: r.user_id,
  url: r.url,
  attemptNumber: r.attempt_number,
  startedAt: new Date(r.started_at).toISOString(),
  durationMs: r.duration_ms,
  responseStatus: r.response_status,
  errorKind: r.error_kind,
  errorText: r.error_text,
  outcome: r.outcome,
  nextRetryAt: r.next_retry_at ? new Date(r.next_retry_at).toISOString() : null,
  batch: r.batch_id ? { id: r.batch_id, events: r.batch_events ?? 0 } : null,
});

const toDetail = (r: Row, batchEvents: AttemptDetailDto["batchEvents"] = null): AttemptDetailDto => ({
  ...toDto(r),
  sentTo: r.sent_to ?? null,
  method: r.method ?? "POST",
  requestHeaders: r.request_headers ?? {},
  requestBody: r.request_body ?? null,
  responseHeaders: r.response_headers ?? null,
  responseBody: r.response_body ?? null,
  batchEvents,
});

/** The events a batch carried, in its body's order (delivery_batch_members by batch, in the order they joined). */
async function batchEventsOf(workspaceId: string, batchId: string): Promise<NonNullable<AttemptDetailDto["batchEvents"]>> {
  const { rows } = await pool().query<{ id: string; message_row_id: string; message_id: string; type: string; user_id: string | null }>(
    `SELECT d.id, d.message_row_id, m.message_id, m.type, m.user_id
       FROM delivery_batch_members bm JOIN deliveries d ON d.id = bm.delivery_id JOIN messages m ON m.id = d.message_row_id
      WHERE bm.batch_id = $1 AND d.workspace_id = $2 ORDER BY bm.delivery_id`,
    [batchId, workspaceId],
  );
  return rows.map((r) => ({ deliveryId: r.id, messageRowId: r.message_row_id, messageId: r.message_id, type: r.type, userId: r.user_id }));
}

/** The statement of one page of the log (bench/growth.ts prints its plan). */
export function attemptPageQuery(workspaceId: string, query: AttemptListQuery): { text: string; values: unknown[] } {
  const where = attemptWhere(workspaceId, query);
  const values = [...where.values];
  let sql = where.sql;
  if (query.cursor) {
    values.push(query.cursor);
    sql += ` AND a.id < $${values.length}`;
  }
  values.push(query.limit + 1);
  return { text: `SELECT ${COLUMNS} FROM ${FROM} WHERE ${sql} ORDER BY a.id DESC LIMIT $${values.length}`, values };
}

/**
 * A payload search reads every message received in its window (docs/decisions/0080-payload-search.md:
 * ~5 µs a message measured), so it gets a time limit: a window too busy to read in time is refused
 * with advice instead of holding a connection.
 */
const SEARCH_TIMEOUT_MS = 10_000;

async function searchRows(page: { text: string; values: unknown[] }): Promise<Row[]> {
  try {
    return await withTransaction(async (client) => {
      await client.query(`SET LOCAL statement_timeout = ${SEARCH_TIMEOUT_MS}`);
      return (await client.query<Row>(page.text, page.values)).rows;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "57014")
      throw new AppError("unavailable", `Searching took longer than ${SEARCH_TIMEOUT_MS / 1000} s; choose a shorter time window`);
    throw err;
  }
}

/** Newest first, keyset-paged on id (indexes attempts(workspace_id[, destination_id|outcome], id DESC, …): prisma/schema.prisma). */
export async function listAttempts(opts: { workspaceId: string; query: AttemptListQuery }): Promise<AttemptPageDto> {
  const { query } = opts;
  const page = attemptPageQuery(opts.workspaceId, query);
  const rows = query.q ? await searchRows(page) : (await pool().query<Row>(page.text, page.values)).rows;
  const shown = rows.slice(0, query.limit);
  return { attempts: shown.map(toDto), nextCursor: rows.length > query.limit ? String(shown[shown.length - 1].id) : null };
}

export async function getAttempt(opts: { workspaceId: string; id: string }): Promise<AttemptDetailDto> {
  if (!/^\d{1,18}$/.test(opts.id)) throw notFound("Attempt");
  const { rows } = await pool().query<Row>(
    `SELECT ${DETAIL_COLUMNS} FROM ${FROM}
     WHERE a.workspace_id = $1 AND a.id = $2`,
    [opts.workspaceId, opts.id],
  );
  if (!rows[0]) throw notFound("Attempt");
  return toDetail(rows[0], rows[0].batch_id ? await batchEventsOf(opts.workspaceId, rows[0].batch_id) : null);
}

/**
 * A message's attempts, oldest first (index attempts(message_row_id)), with the attempts of the
 * batches it went in (partial index attempts(batch_id)); optionally one delivery's.
 */
export async function listMessageAttempts(opts: {
  workspaceId: string;
  messageRowId: string;
  deliveryId?: string;
}): Promise<AttemptDetailDto[]> {
  const values: unknown[] = [opts.workspaceId, opts.messageRowId];
  let extra = "";
  if (opts.deliveryId) {
    values.push(opts.deliveryId);
    extra = " AND a.delivery_id = $3";
  }
  const ofBatches = opts.deliveryId
    ? "SELECT batch_id FROM delivery_batch_members WHERE delivery_id = $3"
    : "SELECT bm.batch_id FROM deliveries d JOIN delivery_batch_members bm ON bm.delivery_id = d.id WHERE d.message_row_id = $2";
  const { rows } = await pool().query<Row>(
    `SELECT ${DETAIL_COLUMNS} FROM ${FROM}
     WHERE a.workspace_id = $1 AND a.message_row_id = $2${extra}
     UNION ALL
     SELECT ${DETAIL_COLUMNS} FROM ${FROM}
     WHERE a.workspace_id = $1 AND a.batch_id IN (${ofBatches}) AND a.message_row_id <> $2
     ORDER BY id ASC`,
    values,
  );
  return rows.map((r) => toDetail(r));
}
