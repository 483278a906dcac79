import "server-only";
import { pool } from "../platform/db";
import type { DeliveryListQuery, DeliveryPageDto, DeliveryRowDto, MessageStatus } from "./contract";
import { attemptWhere } from "./attempts";

/**
 * The request log by message (docs/dashboard.md#the-log-by-message): one row per message and
 * destination, keyed by the delivery that started its chain (replay_number 0), its replays folded in.
 *
 * Paging reads each destination's deliveries newest first from deliveries(destination_id,
 * created_at, id), at most a page from each, and merges them: a workspace's destinations are few, so
 * a page costs (destinations × page) index entries whatever the log's size. A filter that names a few
 * messages (userId, messageId, a payload search, a backfill) starts from those messages instead.
 * Measured by bench:log (docs/decisions/0165-log-by-message.md).
 */

/** Where a chain stands: its latest delivery's state, a pending one split by whether it was attempted. */
const STATUS_SQL = (latest: string, attempted: string) =>
  `CASE ${latest}.state WHEN 'delivered' THEN 'delivered' WHEN 'failed' THEN 'failed'
     ELSE CASE WHEN ${attempted} THEN 'retrying' ELSE 'waiting' END END`;

/** The latest delivery of d's chain: one probe of deliveries(message_row_id, destination_id, replay_number). */
const LATEST = (d: string) => `(SELECT r.state, r.attempt_count, r.replay_number FROM deliveries r
   WHERE r.message_row_id = ${d}.message_row_id AND r.destination_id = ${d}.destination_id
   ORDER BY r.replay_number DESC LIMIT 1)`;

type Row = {
  id: string;
  latest_id: string;
  message_row_id: string;
  message_id: string | null;
  type: string | null;
  event: string | null;
  user_id: string | null;
  destination_id: string;
  destination_name: string | null;
  created_at: Date;
  status: MessageStatus;
  attempts: number;
  replays: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  backfill_id: string | null;
  test_send: boolean;
};

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const toDto = (r: Row): DeliveryRowDto => ({
  id: r.id,
  latestDeliveryId: r.latest_id,
  messageRowId: r.message_row_id,
  messageId: r.message_id,
  type: r.type,
  event: r.event,
  userId: r.user_id,
  destinationId: r.destination_id,
  destinationName: r.destination_name,
  createdAt: iso(r.created_at)!,
  status: r.status,
  attempts: r.attempts,
  replays: r.replays,
  lastStatus: r.last_status,
  lastError: r.last_error,
  lastAttemptAt: iso(r.last_attempt_at),
  nextAttemptAt: iso(r.next_attempt_at),
  backfillId: r.backfill_id,
  testSend: r.test_send,
});

/** The statement of one page of the log by message (bench:log times it through the API). */
export function deliveryPageQuery(workspaceId: string, query: DeliveryListQuery): { text: string; values: unknown[] } {
  const { destinationId, from, to, state, cursor, limit, userId, messageId, q, backfillId, type, event, ...onAttempts } = query;
  const values: unknown[] = [workspaceId];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  /** An attemptWhere condition among ours: its $1 is the workspace as ours is, its other parameters renumbered after ours. */
  const embed = (w: { sql: string; values: unknown[] }) => {
    const offset = values.length - 1;
    values.push(...w.values.slice(1));
    return w.sql.replace(/\$(\d+)/g, (_, n: string) => (n === "1" ? "$1" : `$${Number(n) + offset}`));
  };
  const conds = ["d.workspace_id = $1", "d.replay_number = 0"];
  // type and event are the message's: its own row answers them, a primary-key probe.
  const onMessage = [type ? `m.type = ${param(type)}` : null, event ? `m.event = ${param(event)}` : null].filter(Boolean);
  if (onMessage.length) conds.push(`EXISTS (SELECT 1 FROM messages m WHERE m.id = d.message_row_id AND ${onMessage.join(" AND ")})`);
  // The attempt filters (outcome, HTTP status, error kind, URL): the message has such an attempt there,
  // among its few attempts (index attempts(message_row_id)).
  const attempted = attemptWhere(workspaceId, onAttempts);
  if (attempted.values.length > 1 || attempted.sql !== "a.workspace_id = $1")
    conds.push(
      `EXISTS (SELECT 1 FROM attempts a WHERE a.message_row_id = d.message_row_id AND a.destination_id = d.destination_id AND ${embed(attempted)})`,
    );
  if (from) conds.push(`d.created_at >= ${param(from)}`);
  if (to) conds.push(`d.created_at < ${param(to)}`);
  if (cursor) {
    const [at, id] = [cursor.slice(0, 24), cursor.slice(25)];
    conds.push(`(d.created_at, d.id) < (${param(at)}::timestamptz, ${param(id)}::uuid)`);
  }
  if (state) conds.push(`${STATUS_SQL("l", "(l.attempt_count > 0 OR l.replay_number > 0)")} = ${param(state)}`);
  const latestJoin = state ? `CROSS JOIN LATERAL ${LATEST("d")} l` : "";

  // Filters that name a few messages: start from them (their indexes), then their deliveries.
  const few: string[] = [];
  if (userId) few.push(`SELECT id FROM messages WHERE workspace_id = $1 AND user_id = ${param(userId)}`);
  if (messageId) {
    // by its source's (source_id, message_id), and, for messages of no source (test-sends, audiences,
    // deletions), by the attempts' messageId lookup
    few.push(
      `SELECT m.id FROM messages m WHERE m.source_id = ANY(ARRAY(SELECT s.id FROM sources s WHERE s.workspace_id = $1)) AND m.message_id = ${param(messageId)}
       UNION SELECT a.message_row_id FROM attempts a WHERE ${embed(attemptWhere(workspaceId, { messageId }))}`,
    );
  }
  if (q && from && to) {
    const [pq, pf, pt] = [param(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`), param(from), param(to)];
    few.push(
      `SELECT id FROM messages WHERE workspace_id = $1 AND received_at >= ${pf} AND received_at < ${pt} AND payload::text ILIKE ${pq}`,
    );
  }
  if (backfillId) few.push(`SELECT message_row_id FROM deliveries WHERE backfill_id = ${param(backfillId)}`);

  const n = param(limit + 1);
  let page: string;
  if (few.length > 0) {
    // Each names a set of messages; together, the messages in all of them.
    const sets = few.map((s) => `d.message_row_id IN (${s})`);
    if (destinationId) conds.push(`d.destination_id = ${param(destinationId)}`);
    page = `SELECT d.id, d.message_row_id, d.destination_id, d.created_at, d.backfill_id, d.target_urls IS NOT NULL AS test_send
      FROM deliveries d ${latestJoin} WHERE ${[...conds, ...sets].join(" AND ")}
      ORDER BY d.created_at DESC, d.id DESC LIMIT ${n}`;
  } else {
    const dest = destinationId ? ` AND t.id = ${param(destinationId)}` : "";
    page = `SELECT d.id, d.message_row_id, d.destination_id, d.created_at, d.backfill_id, d.test_send
      FROM destinations t CROSS JOIN LATERAL (
        SELECT d.id, d.message_row_id, d.destination_id, d.created_at, d.backfill_id, d.target_urls IS NOT NULL AS test_send
          FROM deliveries d ${latestJoin}
         WHERE d.destination_id = t.id AND ${conds.join(" AND ")}
         ORDER BY d.created_at DESC, d.id DESC LIMIT ${n}) d
      WHERE t.workspace_id = $1${dest}
      ORDER BY d.created_at DESC, d.id DESC LIMIT ${n}`;
  }
  const text = `WITH page AS (${page})
    SELECT p.id, p.message_row_id, p.destination_id, p.created_at, p.backfill_id, p.test_send, t.name AS destination_name,
           m.message_id, m.type, m.event, m.user_id, c.*, ${STATUS_SQL("c", "c.attempts > 0")} AS status
      FROM page p
      LEFT JOIN destinations t ON t.id = p.destination_id
      LEFT JOIN messages m ON m.id = p.message_row_id
      -- the chain: its deliveries by deliveries(message_row_id, destination_id, replay_number), newest first
      CROSS JOIN LATERAL (
        SELECT (array_agg(r.id ORDER BY r.replay_number DESC))[1] AS latest_id,
               (array_agg(r.state ORDER BY r.replay_number DESC))[1] AS state,
               sum(r.attempt_count)::int AS attempts, max(r.replay_number) AS replays,
               (array_agg(r.last_status ORDER BY r.replay_number DESC) FILTER (WHERE r.attempt_count > 0))[1] AS last_status,
               (array_agg(r.last_error ORDER BY r.replay_number DESC) FILTER (WHERE r.attempt_count > 0))[1] AS last_error,
               max(r.last_attempt_at) AS last_attempt_at,
               (array_agg(r.next_attempt_at ORDER BY r.replay_number DESC))[1] AS next_attempt_at
          FROM deliveries r WHERE r.message_row_id = p.message_row_id AND r.destination_id = p.destination_id
      ) c
     ORDER BY p.created_at DESC, p.id DESC`;
  return { text, values };
}

/** GET /api/deliveries: newest first, keyset-paged on (created_at, id). */
export async function listDeliveries(opts: { workspaceId: string; query: DeliveryListQuery }): Promise<DeliveryPageDto> {
  const page = deliveryPageQuery(opts.workspaceId, opts.query);
  const { rows } = await pool().query<Row>(page.text, page.values);
  const shown = rows.slice(0, opts.query.limit);
  const last = shown[shown.length - 1];
  return {
    deliveries: shown.map(toDto),
    nextCursor: rows.length > opts.query.limit ? `${new Date(last.created_at).toISOString()}_${last.id}` : null,
  };
}
