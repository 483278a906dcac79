import "server-only";
import { pool } from "../platform/db";
import { AppError } from "../platform/errors";
import { parseExactJson } from "../platform/exact-json";
import type { StoredMessage } from "../webhooks/payload";

/** One of a source's recent calls, as the previews route and shape it. */
export type RecentCall = StoredMessage & { event: string | null; payload: Record<string, unknown> };

type Row = {
  message_id: string;
  type: string;
  event: string | null;
  user_id: string | null;
  anonymous_id: string | null;
  timestamp: Date;
  received_at: Date;
  sent_at: Date | null;
  payload: string;
};

/**
 * The newest calls (at most `limit`) of some sources of the workspace, newest first, for the
 * destination form's previews (filter and request shape). A source that is not the workspace's is
 * a field error, named by its index.
 */
export async function recentCalls(opts: { workspaceId: string; sourceIds: string[]; limit: number }): Promise<RecentCall[]> {
  if (opts.sourceIds.length === 0) return [];
  const { rows: owned } = await pool().query<{ id: string }>("SELECT id FROM sources WHERE workspace_id = $1 AND id = ANY($2::uuid[])", [
    opts.workspaceId,
    opts.sourceIds,
  ]);
  const ours = new Set(owned.map((r) => r.id));
  const fields: Record<string, string[]> = {};
  opts.sourceIds.forEach((id, i) => {
    if (!ours.has(id)) fields[`sourceIds.${i}`] = ["No such source in this workspace"];
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);

  // Per source, its newest calls through messages(source_id, received_at); then the newest of those.
  const { rows } = await pool().query<Row>(
    `SELECT m.type, m.event, m.message_id, m.user_id, m.anonymous_id, m.timestamp, m.received_at, m.sent_at, m.payload::text AS payload
       FROM unnest($1::uuid[]) AS s(id)
       CROSS JOIN LATERAL (
         SELECT type, event, message_id, user_id, anonymous_id, timestamp, received_at, sent_at, payload FROM messages
          WHERE source_id = s.id AND origin = 'api' AND payload IS NOT NULL
          ORDER BY received_at DESC LIMIT $2) m
      ORDER BY m.received_at DESC LIMIT $2`,
    [[...ours], opts.limit],
  );
  return rows.map((r) => ({
    type: r.type,
    event: r.event,
    messageId: r.message_id,
    userId: r.user_id,
    anonymousId: r.anonymous_id,
    timestamp: r.timestamp.toISOString(),
    receivedAt: r.received_at.toISOString(),
    sentAt: r.sent_at?.toISOString() ?? null,
    // The stored text, as the worker reads it (lib/delivery/load.ts): a preview parses it as a send does.
    payloadText: r.payload,
    payload: parseExactJson(r.payload).value as Record<string, unknown>,
  }));
}
