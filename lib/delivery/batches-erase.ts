import "server-only";
import type pg from "pg";
import { enqueueDeliveryJobs } from "./enqueue";

/**
 * A deletion request's part in batches (docs/request-shape.md#batching-and-deletion), on its
 * transaction, after the user's pending deliveries were cancelled (lib/deletions/erase.ts). Their
 * events leave every batch they sat in: their parts go; each such batch's stored body goes, so a
 * batch still to be sent is rebuilt from the members left (batches.ts batchesToSend) and one already
 * sent keeps no copy of their data, nor do its attempts' logged bodies; a batch whose lead was
 * erased hands the lead, with a job, to its first member left.
 */
export async function eraseFromBatches(client: pg.PoolClient, messageRowIds: string[]): Promise<void> {
  if (messageRowIds.length === 0) return;
  // deliveries(message_row_id, destination_id, replay_number) finds them; most erasures hit no batch.
  const { rows: hit } = await client.query<{ batch_id: string }>(
    `UPDATE deliveries SET batch_part = NULL WHERE message_row_id = ANY($1::uuid[]) AND batch_id IS NOT NULL RETURNING batch_id`,
    [messageRowIds],
  );
  if (hit.length === 0) return;
  const batchIds = [...new Set(hit.map((r) => r.batch_id))];
  await client.query("UPDATE delivery_batches SET body = NULL WHERE id = ANY($1::uuid[])", [batchIds]);
  // A batch's attempts are logged on the delivery that led it then, always one of its members.
  await client.query(
    `UPDATE attempts SET request_body = NULL
      WHERE batch_id = ANY($1::uuid[]) AND request_body IS NOT NULL
        AND message_row_id IN (SELECT message_row_id FROM deliveries WHERE batch_id = ANY($1::uuid[]))`,
    [batchIds],
  );
  const { rows: handedOn } = await client.query<{ lead: string; next_attempt_at: Date | null }>(
    `UPDATE delivery_batches b SET lead_delivery_id = n.id
       FROM (SELECT DISTINCT ON (batch_id) batch_id, id, next_attempt_at FROM deliveries
              WHERE batch_id = ANY($1::uuid[]) AND state = 'pending' ORDER BY batch_id, id) n
      WHERE b.id = n.batch_id
        AND NOT EXISTS (SELECT 1 FROM deliveries l WHERE l.id = b.lead_delivery_id AND l.state = 'pending')
      RETURNING n.id AS lead, n.next_attempt_at`,
    [batchIds],
  );
  // Members mirror their lead, so the new lead's own next attempt is the batch's (its close time while open).
  for (const h of handedOn) await enqueueDeliveryJobs(client, [h.lead], h.next_attempt_at ? { startAfter: h.next_attempt_at } : {});
}
