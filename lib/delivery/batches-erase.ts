import "server-only";
import type pg from "pg";
import { membersLock } from "./batches";
import { enqueueDeliveryJobs } from "./enqueue";

/**
 * A deletion request's part in batches (docs/request-shape.md#batching-and-deletion), on its
 * transaction, after the user's pending deliveries were cancelled (lib/deletions/erase.ts). Their
 * events leave every batch they sat in: their parts go; each such batch's stored body goes, so a
 * batch still to be sent is rebuilt from the members left (batches.ts batchesToSend) and one already
 * sent keeps no copy of their data, nor do its attempts' logged bodies; a batch whose lead was
 * erased hands the lead, with a job, to its first member left.
 */
export async function eraseFromBatches(client: pg.PoolClient, workspaceId: string, messageRowIds: string[]): Promise<void> {
  if (messageRowIds.length === 0) return;
  // Alone: a join in flight commits its members first, and one after this finds these cancelled (batches.ts membersLock).
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [membersLock(workspaceId)]);
  // deliveries(message_row_id, destination_id, replay_number) finds them; most erasures hit no batch.
  const { rows: hit } = await client.query<{ batch_id: string }>(
    `UPDATE delivery_batch_members m SET part = NULL FROM deliveries d
      WHERE d.message_row_id = ANY($1::uuid[]) AND m.delivery_id = d.id RETURNING m.batch_id`,
    [messageRowIds],
  );
  if (hit.length === 0) return;
  const batchIds = [...new Set(hit.map((r) => r.batch_id))];
  await client.query(DROP_BODIES_SQL, [batchIds]);
  // A batch's attempts are logged on the delivery that led it then, always one of its members.
  await client.query("UPDATE attempts SET request_body = NULL WHERE batch_id = ANY($1::uuid[]) AND request_body IS NOT NULL", [batchIds]);
  // An open batch's members wait for its close time (their own next attempt is set by the rounds after).
  const { rows: handedOn } = await client.query<{ lead: string; due: Date | null }>(
    `UPDATE delivery_batches b SET lead_delivery_id = n.id
       FROM (SELECT DISTINCT ON (m.batch_id) m.batch_id, d.id, d.next_attempt_at
               FROM delivery_batch_members m JOIN deliveries d ON d.id = m.delivery_id
              WHERE m.batch_id = ANY($1::uuid[]) AND d.state = 'pending' ORDER BY m.batch_id, m.delivery_id) n
      WHERE b.id = n.batch_id
        AND NOT EXISTS (SELECT 1 FROM deliveries l WHERE l.id = b.lead_delivery_id AND l.state = 'pending')
      RETURNING n.id AS lead, COALESCE(n.next_attempt_at, CASE WHEN b.state = 'open' THEN b.close_at END) AS due`,
    [batchIds],
  );
  for (const h of handedOn) await enqueueDeliveryJobs(client, [h.lead], h.due ? { startAfter: h.due } : {});
}

/**
 * The stored bodies of batches ($1) go. A batch built when its members joined keeps their parts in
 * its body only (batches.ts tryJoin): first, in the same statement (whose parts all read the body
 * before it goes), its members still pending take theirs back from it — the ones a rebuild sends
 * (batches.ts batchesToSend); the erased ones were cancelled before. A json element is its text as
 * stored, so a part is the bytes the batch sent; the n-th element is the n-th member by id, all
 * members counted (a deleted destination's members keep their rows), and only where the body holds
 * one element per member.
 */
const DROP_BODIES_SQL = `
WITH built AS (
  SELECT b.id, b.body::json AS body FROM delivery_batches b
   WHERE b.id = ANY($1::uuid[]) AND b.body IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM delivery_batch_members o WHERE o.batch_id = b.id AND o.part IS NOT NULL)
), parts AS (
  SELECT built.id AS batch_id, e.n, e.part::text AS part
    FROM built, json_array_elements(built.body) WITH ORDINALITY AS e(part, n)
   WHERE json_array_length(built.body) = (SELECT count(*) FROM delivery_batch_members o WHERE o.batch_id = built.id)
), positions AS (
  SELECT o.delivery_id, o.batch_id, row_number() OVER (PARTITION BY o.batch_id ORDER BY o.delivery_id) AS n
    FROM delivery_batch_members o JOIN built ON built.id = o.batch_id
), restored AS (
  UPDATE delivery_batch_members m SET part = p.part
    FROM positions x JOIN parts p ON p.batch_id = x.batch_id AND p.n = x.n JOIN deliveries d ON d.id = x.delivery_id
   WHERE m.delivery_id = x.delivery_id AND d.state = 'pending'
)
UPDATE delivery_batches SET body = NULL WHERE id = ANY($1::uuid[])`;
