import { pool } from "../db";
import { notFound } from "../errors";
import type { AttemptDetailDto } from "./attempt-schemas";
import { listMessageAttempts } from "./attempts";

export type MessageDetailDto = {
  message: {
    id: string;
    messageId: string;
    type: string;
    userId: string | null;
    anonymousId: string | null;
    sourceId: string | null;
    receivedAt: string;
    timestamp: string;
    payload: unknown;
  };
  deliveries: {
    id: string;
    destinationId: string;
    destinationName: string | null;
    state: "pending" | "delivered" | "failed";
    attemptCount: number;
    lastError: string | null;
    lastStatus: number | null;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
  }[];
  attempts: AttemptDetailDto[];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** GET /api/messages/:id — the message as stored, its deliveries and every attempt, oldest first. */
export async function getMessageDetail(opts: { workspaceId: string; id: string }): Promise<MessageDetailDto> {
  if (!UUID.test(opts.id)) throw notFound("Message");
  const db = pool();
  const [msg, deliveries, attempts] = await Promise.all([
    db.query(
      `SELECT id, message_id, type, user_id, anonymous_id, source_id, received_at, timestamp, payload
       FROM messages WHERE id = $1 AND workspace_id = $2`,
      [opts.id, opts.workspaceId],
    ),
    db.query(
      `SELECT d.id, d.destination_id, t.name AS destination_name, d.state, d.attempt_count, d.last_error, d.last_status,
              d.next_attempt_at, d.delivered_at
       FROM deliveries d JOIN destinations t ON t.id = d.destination_id
       WHERE d.message_row_id = $1 AND d.workspace_id = $2 ORDER BY d.created_at, d.id`,
      [opts.id, opts.workspaceId],
    ),
    listMessageAttempts({ workspaceId: opts.workspaceId, messageRowId: opts.id }),
  ]);
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
    })),
    attempts,
  };
}
