import "server-only";
import { pool, withTransaction } from "../platform/db";
import { wakeWorkers } from "../platform/queue";
import { enqueueDeliveryJobs } from "./enqueue";
import { NOT_ENDED } from "./order";

/**
 * The hold limit's sweep (docs/webhooks.md#hold-limit), run once a minute by the worker's
 * `order-holds` cron: every held delivery whose hold is older than its destination's
 * `maxHoldMinutes` is let go and marked `hold_released_at` (the gate then sends it whatever is
 * pending before it, and the request log says so on it). The same sweep lets go, unmarked, the held
 * deliveries that nothing holds any more — no earlier pending delivery of their key, a destination
 * that stopped ordering, or a disabled one (its deliveries end unsent at once) — which the release on a delivery's end (order.ts) covers in
 * the usual case; this is the backstop for ends recorded elsewhere. Reads `deliveries_held_idx`,
 * which only held deliveries enter.
 */
export const RELEASE_HOLDS_SQL = `
UPDATE deliveries d
   SET held_since = NULL,
       hold_released_at = CASE WHEN t.ordering = 'perUser' AND d.held_since <= now() - make_interval(mins => t.max_hold_minutes)
                               THEN now() END,
       updated_at = now()
  FROM destinations t
 WHERE d.held_since IS NOT NULL AND ${NOT_ENDED("d")} AND t.id = d.destination_id
   AND (t.ordering <> 'perUser' OR NOT t.enabled
        OR d.held_since <= now() - make_interval(mins => t.max_hold_minutes)
        OR NOT EXISTS (SELECT 1 FROM deliveries e
                        WHERE e.destination_id = d.destination_id AND e.order_key = d.order_key
                          AND ${NOT_ENDED("e")} AND e.id < d.id))
RETURNING d.id, d.hold_released_at IS NOT NULL AS past_limit`;

/** Releases the held deliveries past their limit or held by nothing, with their jobs; returns the counts. */
export async function releaseHolds(): Promise<{ pastLimit: number; unheld: number }> {
  const rows = await withTransaction(async (client) => {
    const { rows } = await client.query<{ id: string; past_limit: boolean }>(RELEASE_HOLDS_SQL);
    await enqueueDeliveryJobs(
      client,
      rows.map((r) => r.id),
    );
    return rows;
  });
  if (rows.length > 0) wakeWorkers("deliver");
  const pastLimit = rows.filter((r) => r.past_limit).length;
  return { pastLimit, unheld: rows.length - pastLimit };
}

/** A key with deliveries held behind an earlier one, as the destination page and `/metrics` show it. */
export type HeldKey = { key: string; held: number; since: string; heldBy: string | null };

/**
 * A destination's keys with at least `min` held deliveries, most held first (at most `limit`), with
 * the messageId of the delivery that holds each (its earliest pending one).
 */
export async function heldKeys(opts: { destinationId: string; min?: number; limit?: number }): Promise<HeldKey[]> {
  const { rows } = await pool().query<{ key: string; held: number; since: Date; held_by: string | null }>(
    `SELECT h.order_key AS key, h.held, h.since,
            (SELECT m.message_id FROM deliveries e JOIN messages m ON m.id = e.message_row_id
              WHERE e.destination_id = $1 AND e.order_key = h.order_key AND ${NOT_ENDED("e")} AND e.held_since IS NULL
              ORDER BY e.id LIMIT 1) AS held_by
       FROM (SELECT order_key, count(*)::int AS held, min(held_since) AS since FROM deliveries
              WHERE destination_id = $1 AND held_since IS NOT NULL AND ${NOT_ENDED("deliveries")}
              GROUP BY order_key HAVING count(*) >= $2) h
      ORDER BY h.held DESC, h.order_key LIMIT $3`,
    [opts.destinationId, opts.min ?? 1, opts.limit ?? 50],
  );
  return rows.map((r) => ({ key: r.key, held: r.held, since: r.since.toISOString(), heldBy: r.held_by }));
}

/** Held deliveries and keys holding them, per destination, for `/metrics`. */
export async function heldTotals(): Promise<{ destinationId: string; held: number; keys: number }[]> {
  const { rows } = await pool().query<{ destination_id: string; held: number; keys: number }>(
    `SELECT destination_id, count(*)::int AS held, count(DISTINCT order_key)::int AS keys FROM deliveries
      WHERE held_since IS NOT NULL AND ${NOT_ENDED("deliveries")} GROUP BY destination_id`,
  );
  return rows.map((r) => ({ destinationId: r.destination_id, held: r.held, keys: r.keys }));
}
