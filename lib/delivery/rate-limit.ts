import "server-only";
import type pg from "pg";

/**
 * The per-destination rate limit (docs/webhooks.md#rate-limits): the mechanism that every worker
 * process shares through one row per destination (rate_limit_state). A batch takes what it needs for
 * all its rate-limited destinations in ONE statement — tokens of a token bucket refilled at
 * `perSecond` (holding at most one second's worth) and concurrency leases — and gives the leases
 * back in one statement when its rounds are recorded. The policy built on it (who is exempt, when a
 * throttled delivery comes back) is policy.ts; the figures are in docs/decisions/0120-rate-limits.md.
 */

export type RateLimit = { perSecond: number | null; concurrency: number | null };

/** What a destination asks of its bucket: `want` deliveries now. */
export type TakeRequest = { destinationId: string; want: number; limit: RateLimit };

/** What it got: `granted` deliveries may go now; the others wait until their turn (`bookedMs` from now is the last one's). */
export type TakeResult = { granted: number; bookedMs: number };

/**
 * Takes tokens and leases for each destination (one row each), atomically across workers: the update
 * locks the row, so a second worker's take sees the first one's result. Leases are held per take: an
 * expiry and a count (lease_expiry, lease_count); an entry whose expiry passed is free, so a worker
 * that died holding some leaks them for `leaseTtlS` at most. The grant is the least of what is
 * wanted, whole tokens and free slots; the deliveries not granted book turns one token apart after
 * those already booked (booked_until), so that a backlog comes back spread at the limit's pace
 * rather than all at once.
 */
export const TAKE_SQL = `
UPDATE rate_limit_state s SET (tokens, refilled_at, lease_expiry, lease_count, granted, booked_until) = (
  SELECT CASE WHEN x.rate IS NULL THEN 0 ELSE v.avail - g.n END, c.at,
         CASE WHEN x.conc IS NULL THEN '{}' WHEN g.n = 0 THEN v.live_e ELSE v.live_e || (c.at + make_interval(secs => $5)) END,
         CASE WHEN x.conc IS NULL THEN '{}' WHEN g.n = 0 THEN v.live_c ELSE v.live_c || g.n END,
         g.n,
         CASE WHEN x.rate IS NULL THEN GREATEST(s.booked_until, c.at)
              ELSE GREATEST(s.booked_until, c.at) + make_interval(secs => (x.want - g.n) / x.rate::float8) END
  FROM (SELECT clock_timestamp() AS at) c,
  LATERAL (SELECT CASE WHEN x.rate IS NULL THEN 0
                       ELSE LEAST(x.rate, s.tokens + x.rate * GREATEST(0, extract(epoch FROM c.at - s.refilled_at))) END AS avail,
                  coalesce(array_agg(l.e ORDER BY l.e), '{}') AS live_e, coalesce(array_agg(l.c ORDER BY l.e), '{}') AS live_c,
                  coalesce(sum(l.c), 0)::int AS in_use
             FROM unnest(s.lease_expiry, s.lease_count) AS l(e, c) WHERE l.e > c.at AND l.c > 0) v,
  LATERAL (SELECT GREATEST(0, LEAST(x.want,
                  CASE WHEN x.rate IS NULL THEN x.want ELSE floor(v.avail)::int END,
                  CASE WHEN x.conc IS NULL THEN x.want ELSE x.conc - v.in_use END)) AS n) g
)
FROM unnest($1::uuid[], $2::int[], $3::int[], $4::int[]) AS x(id, want, rate, conc)
WHERE s.destination_id = x.id
RETURNING s.destination_id, s.granted, (extract(epoch FROM s.booked_until - s.refilled_at) * 1000)::float8 AS booked_ms`;

/** A bucket for each destination that has none yet: full, no leases. */
const ENSURE_SQL = `
INSERT INTO rate_limit_state (destination_id, tokens, refilled_at, booked_until, lease_expiry, lease_count)
SELECT x.id, coalesce(x.rate, 0), clock_timestamp(), clock_timestamp(), '{}', '{}'
FROM unnest($1::uuid[], $2::int[]) AS x(id, rate)
ON CONFLICT (destination_id) DO NOTHING`;

/**
 * Gives back `n` leases of each destination, from its earliest-expiring live entries (slots are
 * alike); expired and emptied entries are dropped.
 */
export const RELEASE_SQL = `
UPDATE rate_limit_state s SET (lease_expiry, lease_count) = (
  SELECT coalesce(array_agg(r.e ORDER BY r.e) FILTER (WHERE r.held > 0), '{}'), coalesce(array_agg(r.held ORDER BY r.e) FILTER (WHERE r.held > 0), '{}')
  FROM (SELECT l.e, GREATEST(0, l.c - GREATEST(0, x.n - coalesce(sum(l.c) OVER (ORDER BY l.e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))) AS held
          FROM unnest(s.lease_expiry, s.lease_count) AS l(e, c) WHERE l.e > clock_timestamp()) r
)
FROM unnest($1::uuid[], $2::int[]) AS x(id, n)
WHERE s.destination_id = x.id AND cardinality(s.lease_expiry) > 0`;

/** Takes for every request in one statement (a second one only the first time a destination is limited). */
export async function takeRateLimited(
  db: Pick<pg.Pool, "query">,
  requests: TakeRequest[],
  leaseTtlS: number,
): Promise<Map<string, TakeResult>> {
  const out = new Map<string, TakeResult>();
  if (requests.length === 0) return out;
  const take = async (rs: TakeRequest[]) => {
    const { rows } = await db.query<{ destination_id: string; granted: number; booked_ms: number }>({
      name: "rate-limit-take",
      text: TAKE_SQL,
      values: [
        rs.map((r) => r.destinationId),
        rs.map((r) => r.want),
        rs.map((r) => r.limit.perSecond),
        rs.map((r) => r.limit.concurrency),
        leaseTtlS,
      ],
    });
    for (const r of rows) out.set(r.destination_id, { granted: r.granted, bookedMs: Math.max(0, r.booked_ms) });
  };
  await take(requests);
  const missing = requests.filter((r) => !out.has(r.destinationId));
  if (missing.length > 0) {
    await db.query(ENSURE_SQL, [missing.map((r) => r.destinationId), missing.map((r) => r.limit.perSecond)]);
    await take(missing);
  }
  return out;
}

/** Gives back leases: `counts` per destination. */
export async function releaseLeases(db: Pick<pg.Pool, "query">, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  await db.query({ name: "rate-limit-release", text: RELEASE_SQL, values: [[...counts.keys()], [...counts.values()]] });
}
