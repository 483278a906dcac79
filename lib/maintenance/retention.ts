import "server-only";
import type pg from "pg";
import { pool } from "../platform/db";

/**
 * Retention (docs/operations.md#retention): messages, attempts and captured requests older than their configured
 * ages (and rejection counters older than a week) are deleted by the `maintenance` queue's scheduled job, in batches of BATCH_SIZE rows. Each
 * batch is one short statement of its own (a TID scan of rows picked off the table's time index), so
 * no lock is held for long, ingest and delivery carry on between batches, and autovacuum reclaims
 * the space behind it. Why batched deletes rather than time partitions: see the README.
 */
export const BATCH_SIZE = 5_000;

/** `audit` defaults to the request log's age (docs/operations.md#retention). */
export type RetentionDays = { messages: number; attempts: number; captures: number; audit?: number };
export type RetentionResult = {
  attempts: number;
  messages: number;
  captures: number;
  sessions: number;
  rejectionCounts: number;
  /** sent batches (docs/request-shape.md#batching) as old as the messages kept, none of their events pending */
  deliveryBatches: number;
  auditEvents: number;
  batches: number;
  complete: boolean;
};

const cutoff = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();

const DELETE_ATTEMPTS = `
  DELETE FROM attempts WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM attempts WHERE started_at < $1 LIMIT $2))`;

// A message whose deliveries are still pending is kept (its delivery needs the payload) whatever its
// age; it is deleted by a later run once its deliveries are delivered or failed. Its deliveries go
// with it in the same statement, through deliveries (message_row_id, …): no foreign key does it
// (docs/architecture.md#foreign-keys-on-the-hot-path). The re-check in the DELETE narrows the race
// with a concurrent replay; a replay that still slips in leaves a delivery without its message,
// which the worker drops (lib/delivery/load.ts). The statement returns one empty row per message
// deleted, so its row count is the batch's count.
const NOT_PENDING = `NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_row_id = m.id AND d.state = 'pending')`;
export const DELETE_MESSAGES = `
  WITH gone AS (
    DELETE FROM messages m WHERE m.ctid = ANY(ARRAY(
      SELECT m.ctid FROM messages m WHERE m.received_at < $1 AND ${NOT_PENDING} LIMIT $2))
      AND ${NOT_PENDING}
    RETURNING m.id
  ), gone_deliveries AS (
    DELETE FROM deliveries d USING gone WHERE d.message_row_id = gone.id
  )
  SELECT FROM gone`;

// A batch goes once it is as old as the messages kept and none of its events is pending, with its
// membership rows (its members' deliveries go with their messages). Batches are few (one per up to
// 1,000 events) and appended in time order. One empty row per batch deleted.
const DELETE_BATCHES = `
  WITH gone AS (
    DELETE FROM delivery_batches WHERE ctid = ANY(ARRAY(
      SELECT b.ctid FROM delivery_batches b WHERE b.opened_at < $1
         AND NOT EXISTS (SELECT 1 FROM delivery_batch_members m JOIN deliveries d ON d.id = m.delivery_id
                          WHERE m.batch_id = b.id AND d.state = 'pending') LIMIT $2))
    RETURNING id
  ), gone_members AS (
    DELETE FROM delivery_batch_members m USING gone WHERE m.batch_id = gone.id
  )
  SELECT FROM gone`;

const DELETE_CAPTURES = `
  DELETE FROM captured_requests WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM captured_requests WHERE received_at < $1 LIMIT $2))`;

const DELETE_AUDIT_EVENTS = `
  DELETE FROM audit_events WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM audit_events WHERE at < $1 LIMIT $2))`;

const DELETE_SESSIONS = `
  DELETE FROM sessions WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM sessions WHERE expires_at < $1 LIMIT $2))`;

/** The source page counts rejections of the last 24 hours (lib/sources/health.ts); a week is kept. */
export const REJECTION_COUNTS_DAYS = 7;
const DELETE_REJECTION_COUNTS = `
  DELETE FROM rejection_counts WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM rejection_counts WHERE hour < $1 LIMIT $2))`;

type Db = Pick<pg.Pool, "query">;

/** Deletes in batches until fewer than a batch remain or the deadline passes (the next run resumes). */
async function drain(
  db: Db,
  sql: string,
  before: string,
  deadline: number,
  batchSize: number,
  counts: { batches: number },
): Promise<{ deleted: number; complete: boolean }> {
  let deleted = 0;
  for (;;) {
    const r = await db.query(sql, [before, batchSize]);
    counts.batches++;
    deleted += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < batchSize) return { deleted, complete: true };
    if (Date.now() > deadline) return { deleted, complete: false };
  }
}

/**
 * One retention run. Attempts go before messages, so the request log never shows rows whose message
 * is already gone for longer than the attempt retention allows.
 */
export async function pruneExpiredData(opts: {
  days: RetentionDays;
  now?: Date;
  budgetMs?: number;
  batchSize?: number;
  db?: Db;
}): Promise<RetentionResult> {
  const now = opts.now ?? new Date();
  const db = opts.db ?? pool();
  const deadline = Date.now() + (opts.budgetMs ?? 10 * 60_000);
  const batchSize = opts.batchSize ?? BATCH_SIZE;
  const counts = { batches: 0 };
  const attempts = await drain(db, DELETE_ATTEMPTS, cutoff(now, opts.days.attempts), deadline, batchSize, counts);
  const messages = await drain(db, DELETE_MESSAGES, cutoff(now, opts.days.messages), deadline, batchSize, counts);
  const batches = await drain(db, DELETE_BATCHES, cutoff(now, opts.days.messages), deadline, batchSize, counts);
  const captures = await drain(db, DELETE_CAPTURES, cutoff(now, opts.days.captures), deadline, batchSize, counts);
  const sessions = await drain(db, DELETE_SESSIONS, now.toISOString(), deadline, batchSize, counts);
  const rejections = await drain(db, DELETE_REJECTION_COUNTS, cutoff(now, REJECTION_COUNTS_DAYS), deadline, batchSize, counts);
  const audit = await drain(db, DELETE_AUDIT_EVENTS, cutoff(now, opts.days.audit ?? opts.days.attempts), deadline, batchSize, counts);
  return {
    attempts: attempts.deleted,
    messages: messages.deleted,
    captures: captures.deleted,
    sessions: sessions.deleted,
    rejectionCounts: rejections.deleted,
    deliveryBatches: batches.deleted,
    auditEvents: audit.deleted,
    batches: counts.batches,
    complete:
      attempts.complete &&
      messages.complete &&
      batches.complete &&
      captures.complete &&
      sessions.complete &&
      rejections.complete &&
      audit.complete,
  };
}
