import "server-only";
import type pg from "pg";
import { inLogDays } from "../request-log/attempt-days";
import type { ErasedCounts } from "./contract";
import { eraseFromBatches } from "../delivery/batches-erase";
import { eraseFromCaptureBins } from "../capture/erase";

export const CANCELLED_BY_DELETION = "Cancelled: the message was erased by a deletion request";

/**
 * Erases one user's data in a workspace, on the caller's transaction, and returns the sources that
 * held data for the user (found BEFORE anything is erased) with counts of what went.
 *
 * The user's data: messages with their userId, or with no userId and an anonymousId linked to them
 * (identity links, profile), except delete notices, which are the record of this very erasure.
 * - Messages never delivered anywhere are deleted. Messages with deliveries are kept as skeletons
 *   (payload, userId, anonymousId and event cleared) so the request log, its counts and the attempt
 *   chain stay whole; their pending deliveries are stopped so the data is not sent on afterwards.
 * - Batches holding their events (docs/request-shape.md#batching-and-deletion) lose them: a batch not
 *   yet delivered is rebuilt without them before its next attempt; a sent batch's stored body goes.
 * - Request log rows keep their metadata (URL, status, timing, userId) and lose request and
 *   response bodies, which carry the user's payload.
 * - Capture URL requests carrying the user's events are deleted (lib/capture/erase.ts).
 * - Profile, identity links, audience memberships and debugger entries are deleted.
 */
export async function eraseUserData(
  client: pg.PoolClient,
  opts: { workspaceId: string; userId: string },
): Promise<{ affectedSourceIds: string[]; erased: ErasedCounts }> {
  const { workspaceId, userId } = opts;
  // Two requests naming the same user must not both see the data and both send notices.
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`deletion:${workspaceId}:${userId}`]);

  const { rows: anon } = await client.query<{ id: string }>(
    `SELECT anonymous_id AS id FROM identity_links WHERE workspace_id = $1 AND user_id = $2
     UNION SELECT unnest(anonymous_ids) FROM profiles WHERE workspace_id = $1 AND user_id = $2`,
    [workspaceId, userId],
  );
  const anonymousIds = anon.map((r) => r.id);

  // Two index scans (workspace_id, user_id, …) and (workspace_id, anonymous_id) rather than one OR.
  const { rows: targets } = await client.query<{ id: string; sourceId: string | null; messageId: string }>(
    `SELECT id, source_id AS "sourceId", message_id AS "messageId" FROM messages
      WHERE workspace_id = $1 AND user_id = $2 AND origin <> 'deletion'
     UNION
     SELECT id, source_id, message_id FROM messages
      WHERE workspace_id = $1 AND anonymous_id = ANY($3::text[]) AND user_id IS NULL AND origin <> 'deletion'`,
    [workspaceId, userId, anonymousIds],
  );
  const ids = targets.map((t) => t.id);
  const affectedSourceIds = [...new Set(targets.flatMap((t) => (t.sourceId ? [t.sourceId] : [])))].sort();

  const attempts = await client.query(
    `UPDATE attempts SET request_body = NULL, response_body = NULL
      WHERE workspace_id = $1 AND type <> 'delete' AND (message_row_id = ANY($3::uuid[]) OR (user_id = $2 AND ${inLogDays("attempts")}))
        AND (request_body IS NOT NULL OR response_body IS NOT NULL)`,
    [workspaceId, userId, ids],
  );
  const cancelled = await client.query(
    `UPDATE deliveries SET state = 'failed', last_error = $2, next_attempt_at = NULL, held_since = NULL, updated_at = now()
      WHERE message_row_id = ANY($1::uuid[]) AND state = 'pending'`,
    [ids, CANCELLED_BY_DELETION],
  );
  // Before the batches lose their members' parts: a captured batch is found by its webhook-id.
  const capturedRequests = await eraseFromCaptureBins(client, {
    workspaceId,
    userId,
    anonymousIds,
    messageRowIds: ids,
    messageIds: targets.map((t) => t.messageId),
  });
  await eraseFromBatches(client, workspaceId, ids);
  const deleted = await client.query(
    `DELETE FROM messages m WHERE m.id = ANY($1::uuid[])
        AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_row_id = m.id)`,
    [ids],
  );
  const redacted = await client.query(
    "UPDATE messages SET payload = NULL, user_id = NULL, anonymous_id = NULL, event = NULL WHERE id = ANY($1::uuid[])",
    [ids],
  );
  // No index on the payload: source_calls holds only rejected calls, at most 500 per source.
  const sourceCalls = await client.query(
    `DELETE FROM source_calls c USING sources s
      WHERE s.id = c.source_id AND s.workspace_id = $1 AND c.payload IS NOT NULL
        AND (c.payload->>'userId' = $2 OR (c.payload->>'userId' IS NULL AND c.payload->>'anonymousId' = ANY($3::text[])))`,
    [workspaceId, userId, anonymousIds],
  );
  const profiles = await client.query("DELETE FROM profiles WHERE workspace_id = $1 AND user_id = $2", [workspaceId, userId]);
  const links = await client.query("DELETE FROM identity_links WHERE workspace_id = $1 AND user_id = $2", [workspaceId, userId]);
  const members = await client.query(
    "DELETE FROM audience_members am USING audiences a WHERE a.id = am.audience_id AND a.workspace_id = $1 AND am.user_id = $2",
    [workspaceId, userId],
  );

  return {
    affectedSourceIds,
    erased: {
      messagesDeleted: deleted.rowCount ?? 0,
      messagesRedacted: redacted.rowCount ?? 0,
      deliveriesCancelled: cancelled.rowCount ?? 0,
      attemptsRedacted: attempts.rowCount ?? 0,
      profiles: profiles.rowCount ?? 0,
      identityLinks: links.rowCount ?? 0,
      audienceMemberships: members.rowCount ?? 0,
      sourceCalls: sourceCalls.rowCount ?? 0,
      capturedRequests,
    },
  };
}
