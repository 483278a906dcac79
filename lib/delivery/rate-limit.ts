import "server-only";
import type pg from "pg";
import { columns, statement } from "../platform/pg-columns";

/**
 * The per-destination rate limit (docs/webhooks.md#rate-limits): the mechanism that every worker
 * process shares through one row per destination (rate_limit_state). A batch takes what it needs for
 * all its rate-limited destinations in ONE statement — tokens of a token bucket refilled at
 * `perSecond` (holding at most one second's worth) and concurrency leases — and gives the leases
 * back in one statement when its rounds are recorded. The policy built on it (who is exempt, when a
 * throttled delivery comes back) is policy.ts; the figures are in docs/decisions/0120-rate-limits.md.
 */

export type RateLimit = { perSecond: number | null; concurrency: number | null };

/**
 * What a destination asks of its bucket: `want` deliveries now. `have`: idle leases the caller holds
 * already (a concurrency lease whose round ended, kept for the next delivery: lease-queue.ts), used
 * before new ones and counted as free slots; each delivery granted still takes a token. `book`
 * (default true): the deliveries not granted book turns; false for a worker's look for more while
 * its deliveries wait in it.
 */
export type TakeRequest = { destinationId: string; want: number; limit: RateLimit; have?: number; book?: boolean };

/**
 * What it got: `granted` deliveries may go now (each with a token, and a lease when the destination
 * has a concurrency limit: the `have` ones first, then new ones); the others wait until their turn
 * (`bookedMs` from now is the last one's). `tokenMs`: how long until the bucket holds a whole token
 * again (0 without a per-second limit, or while it holds one).
 */
export type TakeResult = { granted: number; bookedMs: number; tokenMs: number };

type TakeRow = TakeRequest & { leaseTtlS: number };
const TAKE_COLUMNS = columns<TakeRow>()({
  id: ["uuid", (r) => r.destinationId],
  want: ["int", (r) => r.want],
  rate: ["int", (r) => r.limit.perSecond],
  conc: ["int", (r) => r.limit.concurrency],
  have: ["int", (r) => r.have ?? 0],
  book: ["boolean", (r) => r.book ?? true],
  ttl: ["int", (r) => r.leaseTtlS],
});

/**
 * Takes tokens and leases for each destination (one row each), atomically across workers: the update
 * locks the row, so a second worker's take sees the first one's result. Leases are held per take: an
 * expiry and a count (lease_expiry, lease_count); an entry whose expiry passed is free, so a worker
 * that died holding some leaks them for `ttl` seconds at most. The grant is the least of what is
 * wanted, whole tokens and free slots (the caller's `have` idle leases counted free for it); only the
 * leases beyond `have` are added. The deliveries not granted book turns one token apart after those
 * already booked (booked_until), so that a backlog comes back spread at the limit's pace rather than
 * all at once.
 */
export const TAKE = statement(
  { x: TAKE_COLUMNS },
  ({ x }) => `
UPDATE rate_limit_state s SET (tokens, refilled_at, lease_expiry, lease_count, granted, booked_until) = (
  SELECT CASE WHEN x.rate IS NULL THEN 0 ELSE v.avail - g.n END, c.at,
         CASE WHEN x.conc IS NULL THEN '{}' WHEN g.n <= x.have THEN v.live_e ELSE v.live_e || (c.at + make_interval(secs => x.ttl)) END,
         CASE WHEN x.conc IS NULL THEN '{}' WHEN g.n <= x.have THEN v.live_c ELSE v.live_c || (g.n - x.have) END,
         g.n,
         CASE WHEN x.rate IS NULL OR NOT x.book THEN GREATEST(s.booked_until, c.at)
              ELSE GREATEST(s.booked_until, c.at) + make_interval(secs => (x.want - g.n) / x.rate::float8) END
  FROM (SELECT clock_timestamp() AS at) c,
  LATERAL (SELECT CASE WHEN x.rate IS NULL THEN 0
                       ELSE LEAST(x.rate, s.tokens + x.rate * GREATEST(0, extract(epoch FROM c.at - s.refilled_at))) END AS avail,
                  coalesce(array_agg(l.e ORDER BY l.e), '{}') AS live_e, coalesce(array_agg(l.c ORDER BY l.e), '{}') AS live_c,
                  coalesce(sum(l.c), 0)::int AS in_use
             FROM unnest(s.lease_expiry, s.lease_count) AS l(e, c) WHERE l.e > c.at AND l.c > 0) v,
  LATERAL (SELECT GREATEST(0, LEAST(x.want,
                  CASE WHEN x.rate IS NULL THEN x.want ELSE floor(v.avail)::int END,
                  CASE WHEN x.conc IS NULL THEN x.want ELSE x.conc - v.in_use + x.have END)) AS n) g
)
FROM ${x.unnest("x")}
WHERE s.destination_id = x.id
RETURNING s.destination_id, s.granted, (extract(epoch FROM s.booked_until - s.refilled_at) * 1000)::float8 AS booked_ms,
          CASE WHEN x.rate IS NULL THEN 0 ELSE GREATEST(0, (1 - s.tokens) * 1000 / x.rate) END::float8 AS token_ms`,
);

/** A bucket for each destination that has none yet: full, no leases. */
const ENSURE = statement(
  { x: columns<TakeRequest>()({ id: ["uuid", (r) => r.destinationId], rate: ["int", (r) => r.limit.perSecond] }) },
  ({ x }) => `
INSERT INTO rate_limit_state (destination_id, tokens, refilled_at, booked_until, lease_expiry, lease_count)
SELECT x.id, coalesce(x.rate, 0), clock_timestamp(), clock_timestamp(), '{}', '{}'
FROM ${x.unnest("x")}
ON CONFLICT (destination_id) DO NOTHING`,
);

/**
 * Gives back `n` leases of each destination, from its earliest-expiring live entries (slots are
 * alike); expired and emptied entries are dropped.
 */
export const RELEASE = statement(
  { x: columns<[destinationId: string, n: number]>()({ id: ["uuid", (r) => r[0]], n: ["int", (r) => r[1]] }) },
  ({ x }) => `
UPDATE rate_limit_state s SET (lease_expiry, lease_count) = (
  SELECT coalesce(array_agg(r.e ORDER BY r.e) FILTER (WHERE r.held > 0), '{}'), coalesce(array_agg(r.held ORDER BY r.e) FILTER (WHERE r.held > 0), '{}')
  FROM (SELECT l.e, GREATEST(0, l.c - GREATEST(0, x.n - coalesce(sum(l.c) OVER (ORDER BY l.e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))) AS held
          FROM unnest(s.lease_expiry, s.lease_count) AS l(e, c) WHERE l.e > clock_timestamp()) r
)
FROM ${x.unnest("x")}
WHERE s.destination_id = x.id AND cardinality(s.lease_expiry) > 0`,
);

/** Takes for every request in one statement (a second one only the first time a destination is limited). */
export async function takeRateLimited(
  db: Pick<pg.Pool, "query">,
  requests: TakeRequest[],
  leaseTtlS: number,
): Promise<Map<string, TakeResult>> {
  const out = new Map<string, TakeResult>();
  if (requests.length === 0) return out;
  const take = async (rs: TakeRequest[]) => {
    const { rows } = await db.query<{ destination_id: string; granted: number; booked_ms: number; token_ms: number }>({
      name: "rate-limit-take",
      text: TAKE.text,
      values: TAKE.values({ x: rs.map((r) => ({ ...r, leaseTtlS })) }),
    });
    for (const r of rows) out.set(r.destination_id, { granted: r.granted, bookedMs: Math.max(0, r.booked_ms), tokenMs: r.token_ms });
  };
  await take(requests);
  const missing = requests.filter((r) => !out.has(r.destinationId));
  if (missing.length > 0) {
    await db.query(ENSURE.text, ENSURE.values({ x: missing }));
    await take(missing);
  }
  return out;
}

/** Gives back leases: `counts` per destination. */
export async function releaseLeases(db: Pick<pg.Pool, "query">, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  await db.query({ name: "rate-limit-release", text: RELEASE.text, values: RELEASE.values({ x: [...counts] }) });
}
