import "server-only";
import type pg from "pg";
import { hiddenIds } from "../platform/pg-arrays";
import { enqueueDeliveryJobs } from "./enqueue";
import type { LoadedDelivery } from "./load";

/**
 * Ordered delivery (docs/webhooks.md#ordering): per destination and key (the message's userId, else
 * its anonymousId, written on the delivery at ingest as `order_key`), a delivery is not sent while an
 * earlier one of the same key (by arrival: time-ordered ids) is still pending there. Two halves, both
 * under the key's advisory lock, so neither can miss the other:
 *
 * - the gate (holdBehindEarlier), before a round: a delivery with an earlier pending one of its key is
 *   marked held (`held_since`) and dropped from the round, with no job;
 * - the release (lockKeys + releaseNext), in the transaction that records a delivery's end: the
 *   earliest pending delivery of its key, when held, is let go and given a job — in the same
 *   commit as the outcome, so a worker killed between the two loses nothing.
 *
 * A released delivery goes through the gate again, which holds it anew if something earlier is still
 * pending (a later delivery released first never overtakes). Deliveries without a key — destinations
 * that do not order, replays, backfills, test-sends — never reach either half: no statement is added
 * for them (docs/decisions/0160-ordered-delivery.md).
 */

/**
 * "Not ended" (pending) as the order index's predicate says it (migration *_ordered_delivery): the
 * pending deliveries' index (deliveries_pending_idx, destination_id first) cannot serve a query that
 * does not say `state = 'pending'`, so a planner without statistics (a fresh table) cannot scan all
 * of a destination's pending deliveries for each key instead (docs/decisions/0160-ordered-delivery.md).
 */
export const NOT_ENDED = (alias: string) => `${alias}.state <> 'delivered' AND ${alias}.state <> 'failed'`;

/** The key's advisory lock name: one per (destination, key). */
const lockName = (destinationId: string, key: string) => `order:${destinationId}:${key}`;

/**
 * Takes the keys' advisory locks for the caller's transaction, in one sorted order in every worker
 * (so two transactions taking overlapping keys never wait on each other in a cycle).
 */
export async function lockKeys(client: Pick<pg.PoolClient, "query">, keys: readonly OrderKey[]): Promise<void> {
  const names = [...new Set(keys.map((k) => lockName(k.destinationId, k.key)))].sort();
  if (names.length === 0) return;
  await client.query({
    name: "order-lock",
    text: "SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) FROM unnest($1::text[]) AS k",
    values: [names],
  });
}

export type OrderKey = { destinationId: string; key: string };

/**
 * The gate's statement ($1: candidate ids): each still-pending candidate with an earlier pending
 * delivery of its (destination, key) is held — no due time, `held_since` kept from its first hold —
 * and one that was held and is free now drops its mark. Reads `deliveries_order_idx`, one descent per
 * candidate. Exported for its test (test/ordering.int.test.ts).
 */
export const HOLD_SQL = `
WITH c AS MATERIALIZED (
  SELECT d.id, d.held_since,
         EXISTS (SELECT 1 FROM deliveries e
                  WHERE e.destination_id = d.destination_id AND e.order_key = d.order_key
                    AND ${NOT_ENDED("e")} AND e.id < d.id) AS blocked
    FROM deliveries d
   WHERE d.id = ANY(${hiddenIds(1)}) AND ${NOT_ENDED("d")} AND d.order_key IS NOT NULL
)
UPDATE deliveries d
   SET held_since = CASE WHEN c.blocked THEN coalesce(d.held_since, now()) END,
       next_attempt_at = CASE WHEN c.blocked THEN NULL ELSE d.next_attempt_at END,
       updated_at = now()
  FROM c
 WHERE d.id = c.id AND (c.blocked OR c.held_since IS NOT NULL)
RETURNING d.id, c.blocked`;

/**
 * The gate: holds the deliveries of `loaded` that must wait for an earlier one of their key, in one
 * transaction under their keys' locks; returns their ids (the caller leaves them out of the round).
 */
export async function holdBehindEarlier(db: pg.Pool, loaded: readonly LoadedDelivery[]): Promise<Set<string>> {
  // The plan says which it judges (fate.ts): an ordering destination's keyed delivery that would be sent.
  const candidates = loaded.filter((d) => d.plan.ordered);
  if (candidates.length === 0) return new Set();
  const client = await db.connect();
  try {
    await client.query("BEGIN");
    await lockKeys(
      client,
      candidates.map((d) => ({ destinationId: d.destinationId, key: d.orderKey! })),
    );
    const { rows } = await client.query<{ id: string; blocked: boolean }>({
      name: "order-hold",
      text: HOLD_SQL,
      values: [candidates.map((d) => d.id)],
    });
    await client.query("COMMIT");
    return new Set(rows.filter((r) => r.blocked).map((r) => r.id));
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * The keys of ended deliveries that a batch's round recorded as members (`ids`): their rows say, as
 * members are not loaded. Read before the locks are taken; keys never change.
 */
export async function keysOf(db: Pick<pg.PoolClient, "query">, ids: readonly string[]): Promise<OrderKey[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ destination_id: string; order_key: string }>(
    `SELECT DISTINCT destination_id, order_key FROM deliveries WHERE id = ANY(${hiddenIds(1)}) AND order_key IS NOT NULL`,
    [ids],
  );
  return rows.map((r) => ({ destinationId: r.destination_id, key: r.order_key }));
}

/**
 * The release's statement ($1, $2: destinations and keys whose delivery ended): the earliest pending
 * delivery of each key, when it is held, is let go. Exported for its test.
 */
export const RELEASE_SQL = `
WITH n AS MATERIALIZED (
  SELECT (SELECT h.id FROM deliveries h
           WHERE h.destination_id = k.destination_id AND h.order_key = k.order_key AND ${NOT_ENDED("h")}
           ORDER BY h.id LIMIT 1) AS id
    FROM unnest($1::uuid[], $2::text[]) AS k(destination_id, order_key)
)
-- by primary key (an array, not a join the planner may hash over the whole table)
UPDATE deliveries d SET held_since = NULL, updated_at = now()
 WHERE d.id = ANY(ARRAY(SELECT n.id FROM n WHERE n.id IS NOT NULL)) AND d.held_since IS NOT NULL
RETURNING d.id`;

/**
 * Lets the next held delivery of each key go, with its `deliver` job, on the caller's transaction
 * (which holds the keys' locks since before it recorded the ends); returns how many went.
 */
export async function releaseNext(client: pg.PoolClient, keys: readonly OrderKey[]): Promise<number> {
  if (keys.length === 0) return 0;
  const { rows } = await client.query<{ id: string }>({
    name: "order-release",
    text: RELEASE_SQL,
    values: [keys.map((k) => k.destinationId), keys.map((k) => k.key)],
  });
  await enqueueDeliveryJobs(
    client,
    rows.map((r) => r.id),
  );
  return rows.length;
}
