import "server-only";
import type pg from "pg";
import { newRowId } from "./row-ids";

type Queryable = Pick<pg.PoolClient, "query">;

/**
 * The message producer for messages Eventrail makes one at a time: test-sends and deletion
 * notices. Its ids follow the one row-id scheme (row-ids.ts). The two writers of messages in bulk
 * write them in their own statement, for the round trips it saves: ingest (persist.ts) and an
 * audience sync (lib/audiences/sync-lane.ts); one-producer.test.ts keeps it to these.
 */
export type NewMessage = {
  workspaceId: string;
  /** null for a message not received through a source (a test-send) */
  sourceId: string | null;
  origin: "test" | "deletion";
  /** the deletion request (or audience sync) that made it */
  originRef?: string | null;
  messageId: string;
  type: string;
  userId: string | null;
  anonymousId?: string | null;
  event?: string | null;
  timestamp: Date | string;
  sentAt?: Date | string | null;
  /** now (the transaction's time) when left out */
  receivedAt?: Date | string | null;
  /** the stored message, in the Segment shape */
  payload: object;
};

/**
 * Inserts one message in the caller's transaction and returns its row id, or the id of the one
 * already stored with the same (source, messageId): a message is stored once per source.
 */
export async function insertMessage(client: Queryable, m: NewMessage): Promise<string> {
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO messages (id, workspace_id, source_id, origin, origin_ref, message_id, type, user_id, anonymous_id, event,
                           timestamp, sent_at, received_at, payload)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13::timestamptz, now()), $14)
     ON CONFLICT (source_id, message_id) DO NOTHING
     RETURNING id`,
    [
      newRowId(),
      m.workspaceId,
      m.sourceId,
      m.origin,
      m.originRef ?? null,
      m.messageId,
      m.type,
      m.userId,
      m.anonymousId ?? null,
      m.event ?? null,
      m.timestamp,
      m.sentAt ?? null,
      m.receivedAt ?? null,
      JSON.stringify(m.payload),
    ],
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  const existing = await client.query<{ id: string }>("SELECT id FROM messages WHERE source_id = $1 AND message_id = $2", [
    m.sourceId,
    m.messageId,
  ]);
  return existing.rows[0].id;
}
