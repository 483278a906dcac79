// The rate limit's shared row (lib/delivery/rate-limit.ts, docs/webhooks.md#rate-limits): what one
// take grants and books, leases given back and expired, and takes racing from many connections.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseLeases, takeRateLimited, type RateLimit } from "../lib/delivery/rate-limit";
import { createTestDatabase } from "./harness/pg";
import { insertDestination, insertWorkspace } from "./harness/delivery/direct";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let workspaceId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 20 });
  workspaceId = await insertWorkspace(db.url);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const newDestination = () => insertDestination(db.url, { workspaceId, urls: ["http://127.0.0.1:9/hook"] });
const take = async (destinationId: string, want: number, limit: RateLimit) =>
  (await takeRateLimited(pool, [{ destinationId, want, limit }], 30)).get(destinationId)!;
const live = async (destinationId: string) =>
  (
    await pool.query<{ n: number }>(
      `SELECT (SELECT coalesce(sum(c), 0)::int FROM unnest(lease_expiry, lease_count) AS l(e, c) WHERE e > now()) AS n
         FROM rate_limit_state WHERE destination_id = $1`,
      [destinationId],
    )
  ).rows[0].n;

describe("the rate limit's shared row", () => {
  it("grants one second's tokens to an idle destination and books the rest one token apart", async () => {
    const id = await newDestination();
    const first = await take(id, 25, { perSecond: 10, concurrency: null });
    expect(first.granted).toBe(10);
    // 15 waiting at 10/s: booked up to 1.5 s from now (booked_until is kept to the millisecond).
    expect(first.bookedMs).toBeGreaterThan(1400);
    expect(first.bookedMs).toBeLessThanOrEqual(1501);
    const second = await take(id, 5, { perSecond: 10, concurrency: null });
    expect(second.granted).toBe(0);
    expect(second.bookedMs).toBeGreaterThan(1900);
    expect(second.bookedMs).toBeLessThanOrEqual(2001);
  });

  it("an idle destination saves at most one second's tokens: after an hour at 10/s it bursts 10, not 36,000", async () => {
    const id = await newDestination();
    const limit = { perSecond: 10, concurrency: null };
    expect((await take(id, 1, limit)).granted).toBe(1);
    // An hour without a take (its last refill moved back an hour rather than waited for).
    await pool.query("UPDATE rate_limit_state SET refilled_at = refilled_at - interval '1 hour' WHERE destination_id = $1", [id]);
    const burst = await take(id, 1000, limit);
    expect(burst.granted).toBe(10);
    // the 990 left wait their turns at 10/s: the last ~99 s from now
    expect(burst.bookedMs).toBeGreaterThan(98_000);
    const { rows } = await pool.query<{ tokens: number }>("SELECT tokens FROM rate_limit_state WHERE destination_id = $1", [id]);
    expect(rows[0].tokens).toBeLessThan(1);
  });

  it("holds concurrency slots until they are given back, and frees expired ones", async () => {
    const id = await newDestination();
    const limit = { perSecond: null, concurrency: 3 };
    expect((await take(id, 2, limit)).granted).toBe(2);
    expect((await take(id, 5, limit)).granted).toBe(1);
    expect(await live(id)).toBe(3);
    await releaseLeases(pool, new Map([[id, 2]]));
    expect(await live(id)).toBe(1);
    expect((await take(id, 5, limit)).granted).toBe(2);
    // More given back than held (a lease that expired meanwhile): nothing below zero.
    await releaseLeases(pool, new Map([[id, 10]]));
    expect(await live(id)).toBe(0);
    expect((await take(id, 3, limit)).granted).toBe(3);
    // A worker that died: its leases expire, and their slots are free again.
    await pool.query(`UPDATE rate_limit_state SET lease_expiry = ARRAY[now() - interval '1 second'] WHERE destination_id = $1`, [id]);
    expect((await take(id, 3, limit)).granted).toBe(3);
  });

  it("lets a caller's idle leases go on with tokens: counted free for it, no new lease taken, nothing booked", async () => {
    const id = await newDestination();
    const limit = { perSecond: 2, concurrency: 2 };
    // 2 tokens and 2 leases; the 3 others booked 1.5 s ahead
    const first = await take(id, 5, limit);
    expect(first.granted).toBe(2);
    expect(await live(id)).toBe(2);
    const onIdle = async (want: number, have: number) =>
      (await takeRateLimited(pool, [{ destinationId: id, want, limit, have, book: false }], 30)).get(id)!;
    // Both rounds ended, their leases idle with the caller: the bucket is empty, so nothing yet, and
    // the take says when its next token is due (half a second at 2/s).
    const short = await onIdle(2, 2);
    expect(short.granted).toBe(0);
    expect(short.tokenMs).toBeGreaterThan(0);
    expect(short.tokenMs).toBeLessThanOrEqual(500);
    // nothing booked by that look: the last booked turn is still ~1.5 s ahead
    expect(short.bookedMs).toBeLessThanOrEqual(first.bookedMs);
    await pool.query("UPDATE rate_limit_state SET refilled_at = refilled_at - interval '1 second' WHERE destination_id = $1", [id]);
    const refilled = await onIdle(3, 2);
    // Two tokens: the two idle leases go on; no third (no free slot), and no new lease entry.
    expect(refilled.granted).toBe(2);
    expect(await live(id)).toBe(2);
  });

  it("never grants more than the limit to takes racing from many connections", async () => {
    const id = await newDestination();
    const limit = { perSecond: 1000, concurrency: 5 };
    const grants = await Promise.all(Array.from({ length: 20 }, () => take(id, 1, limit)));
    expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(5);
    const byRate = await newDestination();
    const rated = await Promise.all(Array.from({ length: 20 }, () => take(byRate, 3, { perSecond: 10, concurrency: null })));
    // One second's tokens (10), plus what refills while the takes run (well under one more).
    expect(rated.reduce((n, g) => n + g.granted, 0)).toBeGreaterThanOrEqual(10);
    expect(rated.reduce((n, g) => n + g.granted, 0)).toBeLessThanOrEqual(11);
  });

  it("takes for several destinations in one statement, each by its own limit", async () => {
    const a = await newDestination();
    const b = await newDestination();
    const got = await takeRateLimited(
      pool,
      [
        { destinationId: a, want: 4, limit: { perSecond: 2, concurrency: null } },
        { destinationId: b, want: 4, limit: { perSecond: null, concurrency: 3 } },
      ],
      30,
    );
    expect([got.get(a)?.granted, got.get(b)?.granted]).toEqual([2, 3]);
  });
});
