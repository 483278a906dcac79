import "server-only";
import { pool } from "../platform/db";
import { roundedNumbers } from "../platform/exact-json";
import { assertUuid, notFound } from "../platform/errors";
import type { MessageDetailDto } from "./contract";
import { listMessageAttempts } from "./attempts";

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** GET /api/messages/:id — the message as stored, its deliveries and every attempt, oldest first. */
export async function getMessageDetail(opts: { workspaceId: string; id: string }): Promise<MessageDetailDto> {
  assertUuid(opts.id, "Message");
  const db = pool();
  // Deliveries first, attempts after: a round's attempt rows and its delivery update commit in one
  // statement (lib/delivery/record.ts), so a delivery read as final always finds its attempts. Read
  // in parallel on separate connections, a final delivery could come back without them.
  const [msg, deliveries] = await Promise.all([
    db.query(
      `SELECT id, message_id, type, user_id, anonymous_id, source_id, received_at, timestamp, payload, payload::text AS payload_text
       FROM messages WHERE id = $1 AND workspace_id = $2`,
      [opts.id, opts.workspaceId],
    ),
    db.query(
      `SELECT d.id, d.destination_id, t.name AS destination_name, d.state, d.attempt_count, d.last_error, d.last_status,
              -- an event waiting in an open batch goes at the batch's close time
              COALESCE(d.next_attempt_at, CASE WHEN d.state = 'pending' AND b.state = 'open' THEN b.close_at END) AS next_attempt_at,
              d.delivered_at, d.replay_of, d.replay_number, bm.batch_id, d.held_since, d.hold_released_at, h.message_row_id AS held_by_row,
              h.message_id AS held_by
       FROM deliveries d JOIN destinations t ON t.id = d.destination_id
       LEFT JOIN delivery_batch_members bm ON bm.delivery_id = d.id LEFT JOIN delivery_batches b ON b.id = bm.batch_id
       -- a held delivery's holder: the earliest pending delivery of its key that is not held (deliveries_order_idx)
       LEFT JOIN LATERAL (SELECT e.message_row_id, hm.message_id FROM deliveries e JOIN messages hm ON hm.id = e.message_row_id
                           WHERE d.held_since IS NOT NULL AND e.destination_id = d.destination_id AND e.order_key = d.order_key
                             AND e.state <> 'delivered' AND e.state <> 'failed' AND e.id < d.id AND e.held_since IS NULL
                           ORDER BY e.id LIMIT 1) h ON true
       WHERE d.message_row_id = $1 AND d.workspace_id = $2 ORDER BY d.created_at, d.replay_number, d.id`,
      [opts.id, opts.workspaceId],
    ),
  ]);
  const attempts = await listMessageAttempts({ workspaceId: opts.workspaceId, messageRowId: opts.id });
  const m = msg.rows[0];
  if (!m) throw notFound("Message");
  return {
    message: {
      id: m.id,
      messageId: m.message_id,
      type: m.type,
      userId: m.user_id,
      anonymousId: m.anonymous_id,
      sourceId: m.source_id,
      receivedAt: iso(m.received_at)!,
      timestamp: iso(m.timestamp)!,
      payload: m.payload,
      payloadText: m.payload_text,
      roundedNumbers: roundedNumbers(m.payload_text),
    },
    deliveries: deliveries.rows.map((d) => ({
      id: d.id,
      destinationId: d.destination_id,
      destinationName: d.destination_name,
      state: d.state,
      attemptCount: d.attempt_count,
      lastError: d.last_error,
      lastStatus: d.last_status,
      nextAttemptAt: iso(d.next_attempt_at),
      deliveredAt: iso(d.delivered_at),
      replayOf: d.replay_of,
      replayNumber: d.replay_number,
      batchId: d.batch_id,
      held:
        d.held_since && d.state === "pending"
          ? { since: iso(d.held_since)!, byMessageRowId: d.held_by_row ?? null, byMessageId: d.held_by ?? null }
          : null,
      holdReleasedAt: iso(d.hold_released_at),
    })),
    attempts,
  };
}
