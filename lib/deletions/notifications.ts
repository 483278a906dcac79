import "server-only";
import crypto from "node:crypto";
import type pg from "pg";
import { createDeliveries } from "../delivery/enqueue";
import { insertMessage } from "../tracking/produce";

/**
 * The messageId of the delete notice for one (request, source, user): deterministic, so a job that
 * runs again inserts nothing new (unique (source_id, message_id) + ON CONFLICT DO NOTHING).
 */
export function deleteNotificationMessageId(opts: { requestId: string; sourceId: string; userId: string }): string {
  const digest = crypto.createHash("sha256").update(`${opts.requestId}\0${opts.sourceId}\0${opts.userId}`).digest("hex");
  return `delete-${digest.slice(0, 32)}`;
}

/**
 * The stored message of a delete notice. The delivery engine sends delete bodies as
 * `{"type","userId","timestamp"}` only; messageId stays in storage for the log and dedupe.
 */
export function deleteNotificationPayload(opts: { userId: string; timestamp: string; messageId: string }) {
  return { type: "delete" as const, userId: opts.userId, timestamp: opts.timestamp, messageId: opts.messageId };
}

/** Groups connections by source: the destinations each affected source notifies. */
export function destinationsBySource(rows: { sourceId: string; destinationId: string }[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const r of rows) {
    const list = map.get(r.sourceId) ?? [];
    if (!list.includes(r.destinationId)) list.push(r.destinationId);
    map.set(r.sourceId, list);
  }
  return map;
}

/**
 * Creates, on the caller's transaction, one delete notice per affected source that has at least one
 * enabled destination, and a delivery of it to each such destination (normal delivery path: signed,
 * retried, logged). Returns how many deliveries exist for this user's notices.
 */
export async function createDeleteNotifications(
  client: pg.PoolClient,
  opts: { workspaceId: string; requestId: string; userId: string; sourceIds: string[]; timestamp: string },
): Promise<number> {
  if (opts.sourceIds.length === 0) return 0;
  const { rows: connections } = await client.query<{ sourceId: string; destinationId: string }>(
    `SELECT ds.source_id AS "sourceId", ds.destination_id AS "destinationId"
       FROM destination_sources ds JOIN destinations d ON d.id = ds.destination_id
      WHERE ds.source_id = ANY($2::uuid[]) AND d.workspace_id = $1 AND d.enabled
      ORDER BY ds.source_id, ds.destination_id`,
    [opts.workspaceId, opts.sourceIds],
  );
  const deliveries = [];
  for (const [sourceId, destinationIds] of destinationsBySource(connections)) {
    const messageId = deleteNotificationMessageId({ requestId: opts.requestId, sourceId, userId: opts.userId });
    const payload = deleteNotificationPayload({ userId: opts.userId, timestamp: opts.timestamp, messageId });
    const messageRowId = await insertMessage(client, {
      workspaceId: opts.workspaceId,
      sourceId,
      origin: "deletion",
      originRef: opts.requestId,
      messageId,
      type: "delete",
      userId: opts.userId,
      timestamp: opts.timestamp,
      payload,
    });
    for (const destinationId of destinationIds) deliveries.push({ workspaceId: opts.workspaceId, messageRowId, destinationId });
  }
  await createDeliveries(client, deliveries);
  return deliveries.length;
}
