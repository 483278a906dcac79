import "server-only";
import { pool } from "../platform/db";
import { env } from "../platform/env";
import { logger } from "../platform/logger";
import { processWide } from "../platform/runtime";
import { originOf } from "../webhooks/post";
import type { LoadedDelivery } from "./load";
import { OriginLimiter } from "./origins";
import { LeaseQueue } from "./lease-queue";
import { releaseLeases, takeRateLimited, type RateLimit, type TakeRequest } from "./rate-limit";

/**
 * The slow-endpoint policy, in one place (docs/webhooks.md#endpoint-isolation): its limits, which
 * requests are deferred and when a deferred or retried round comes back, which rounds a batch stops
 * waiting for, and the two lanes deliveries are taken on. One slow or dead endpoint must not slow
 * the others (docs/decisions/0010-endpoint-isolation.md). The mechanisms it drives are the limiter
 * (origins.ts), late rounds (detach.ts) and the lanes' workers (lanes.ts).
 */

/** A request that cannot get a connection slot to its origin within this long is deferred, not queued. */
export const MAX_SLOT_WAIT_MS = 3_000;
/** A deferred round comes back at its origin's pace (deferTurnMs), but never later than this. */
export const MAX_DEFER_MS = 30_000;
/**
 * How long a batch waits for its rounds before it records the others and lets the rest end on
 * their own (detach.ts): a batch must not hold its worker slot for its slowest endpoint
 * (docs/decisions/0014-batch-patience.md).
 */
export const BATCH_PATIENCE_MS = 500;

/**
 * A late round's safety job comes back this long after its batch (detach.ts): late rounds end
 * within the 5 s attempt timeout plus the limiter's longest wait (9 s), then record; 30 s is twice that.
 */
export const SAFETY_DELAY_S = 30;
/** Late rounds that have ended are recorded in groups, one at most this often (detach.ts recordAsTheyEnd). */
export const LATE_RECORD_GAP_MS = 250;

/**
 * The two lanes, each a queue with worker slots of its own (lib/platform/queue.ts): fresh
 * deliveries (`deliver`: ingest, replays, audiences, deletions; LISTEN/NOTIFY wakes the worker when
 * they are inserted) and deliveries due again (`deliverRetry`: retries, deferrals, safety jobs), so
 * that a dead endpoint's deliveries, back every few seconds for hours, never hold the batch slots a
 * healthy destination's new deliveries wait for. A batch takes `jobsPerFetch` jobs (each up to 100
 * deliveries); `parallelBatches` run at once. The retry lane has fewer slots: retries must not take
 * the CPU that fresh deliveries need. Its jobs' NOTIFY would fire at insert, not when they fall
 * due, so the worker wakes it when the retries it scheduled fall due (lanes.ts) and it also polls,
 * as a backstop for another worker's retries.
 */
export const LANES = {
  deliver: { jobsPerFetch: 5, parallelBatches: 4, polling: { pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 10 } },
  deliverRetry: { jobsPerFetch: 5, parallelBatches: 2, polling: { pollingIntervalSeconds: 2 } },
  /**
   * A backfill's deliveries (docs/routing.md#backfill): one batch at a time, live traffic first. Two
   * jobs per fetch, so that pg-boss fetches back to back while the backlog lasts (it bursts only
   * when a fetch of more than one job comes back full).
   */
  deliverBackfill: { jobsPerFetch: 2, parallelBatches: 1, polling: { pollingIntervalSeconds: 1 } },
} as const;
export type Lane = keyof typeof LANES;
/** The lane a delivery attempted (or deferred, or let go late) before is taken up on again. */
export const RETRY_LANE = "deliverRetry" satisfies Lane;

/** One per process (runtime.ts), shared by every batch: the cap is per origin, not per batch. Memory only. */
const limiter = () => processWide("origin limiter", () => new OriginLimiter(env().WORKER_CONCURRENCY, MAX_SLOT_WAIT_MS));

/** A connection slot for a request to `url`: its releaser (call it with the request's duration), or null: deferred. */
export const acquireSlot = (url: string): Promise<((durationMs?: number) => void) | null> => limiter().acquire(originOf(url));

/** When a request to `url` that its origin deferred comes back, in ms (OriginLimiter.deferTurnMs). */
export const deferTurnMs = (url: string): number => limiter().deferTurnMs(originOf(url), MAX_DEFER_MS);

/** The earliest a request to `url` that is to be retried may come back, in ms (OriginLimiter.retryTurnMs). */
export const retryTurnMs = (url: string): number => limiter().retryTurnMs(originOf(url), MAX_DEFER_MS);

/** A judgement of URLs by their origin, each origin judged once: one look at a batch's rounds. */
function byOrigin(judge: (origin: string) => boolean): (url: string) => boolean {
  const judged = new Map<string, boolean>();
  return (url) => {
    const origin = originOf(url);
    let verdict = judged.get(origin);
    if (verdict === undefined) {
      verdict = judge(origin);
      judged.set(origin, verdict);
    }
    return verdict;
  };
}

const slowNow = () => byOrigin((origin) => limiter().isSlow(origin, BATCH_PATIENCE_MS));

/**
 * Which of a batch's rounds (their URLs, by index) it stops waiting for (detach.ts settleWithin):
 * `unwaited`, those to an origin already slow when the batch starts; `look`, at each look, those
 * to an origin found slow since (by this batch or another) and, once the patience is over, those
 * queued deeper than the limiter itself would wait for a slot, so that a busy, slower origin does not
 * hold every batch slot while other destinations' jobs wait. `letGoForQueue` tells the latter apart.
 */
export function batchWaitPolicy(urls: readonly string[][]) {
  const slowAtStart = slowNow();
  const forQueue = new Set<number>();
  return {
    unwaited: urls.map((us) => us.some(slowAtStart)),
    look(patienceOver: boolean): (i: number) => boolean {
      const slow = slowNow();
      const deep = byOrigin((origin) => limiter().backlogMs(origin) > MAX_SLOT_WAIT_MS);
      return (i) => {
        forQueue.delete(i);
        if (urls[i].some(slow)) return true;
        if (!patienceOver || !urls[i].some(deep)) return false;
        forQueue.add(i);
        return true;
      };
    },
    letGoForQueue: (i: number) => forQueue.has(i),
  };
}

/**
 * A concurrency lease (rate-limit.ts) lasts this long at most: a round ends within the 5 s attempt
 * timeout plus the origin limiter's longest wait and is recorded by its safety job's time; a worker
 * that dies holding leases leaks them for this long, no longer.
 */
export const LEASE_TTL_S = SAFETY_DELAY_S;
/** A delivery waiting for a concurrency slot only (no per-second limit) comes back this long after, per `concurrency` waiting before it. */
export const CONCURRENCY_TURN_MS = 1_000;
/**
 * A concurrency-limited destination's delivery that its take did not grant waits in the worker for a
 * lease this long at most (lease-queue.ts), then takes its turn. Short of the lease's 30 s: a lease
 * handed on until then still ends its last round (5 s timeout, 3 s slot wait) well before it expires.
 */
export const LEASE_WAIT_MS = 5_000;
/** While a batch holds fewer leases than the limit, it asks the row for more this often (lease-queue.ts). */
export const LEASE_POLL_MS = 50;

/**
 * The turns, in ms from now, of a destination's `waiting` deliveries that its take did not grant. Per
 * second (with or without a concurrency limit, which the worker holds: lease-queue.ts): the take
 * booked them last, one token apart, ending at `bookedMs`. Concurrency only: a group of
 * `concurrency` every CONCURRENCY_TURN_MS.
 */
export function throttleTurns(opts: { waiting: number; bookedMs: number; limit: RateLimit }): number[] {
  const { waiting, bookedMs, limit } = opts;
  if (limit.perSecond === null) {
    const per = limit.concurrency ?? waiting;
    return Array.from({ length: waiting }, (_, k) => Math.ceil((k + 1) / per) * CONCURRENCY_TURN_MS);
  }
  const firstBooked = bookedMs - (waiting * 1000) / limit.perSecond;
  return Array.from({ length: waiting }, (_, k) => firstBooked + ((k + 1) * 1000) / limit.perSecond!);
}

/** Which of a batch's deliveries go now, and the leases they hold until their rounds are recorded. */
export type Admission = {
  /**
   * per delivery (by index): null, it goes now; the ms until its turn (throttled: deferred, not an
   * attempt); or, for a concurrency-limited destination, a wait in the worker for a lease (and a
   * token, with a per-second limit too) that resolves to one of those (lease-queue.ts)
   */
  turns: (number | null | Promise<number | null>)[];
  /** Whether this delivery holds a concurrency lease now. */
  holds(deliveryId: string): boolean;
  /** Its round's requests ended: its lease goes on to the next delivery of its destination waiting in this batch, if any. */
  ended(deliveryId: string): void;
  /** Gives back the concurrency leases of these deliveries (their rounds are recorded); never throws: leases also expire. */
  release(deliveryIds: string[]): Promise<void>;
};

const giveBack = (counts: Map<string, number>) =>
  releaseLeases(pool(), counts).catch((err: Error) =>
    logger().warn({ destinations: [...counts.keys()], err: err.message }, "concurrency leases not given back; they expire"),
  );

/**
 * The rate limits' hook (docs/webhooks.md#rate-limits): one statement takes what the batch's
 * rate-limited destinations need (rate-limit.ts). The deliveries it does not grant wait: a
 * per-second limit's for turns booked one token apart, spread over the seconds ahead, deferred like a
 * request whose origin had no slot (round.ts throttledRound): no attempt, no failure, no retry window
 * started; a concurrency limit's (with or without a per-second one) in the worker, each taking a
 * lease as one of the batch's rounds ends, and a token too with a per-second limit (lease-queue.ts),
 * and its turn only if it has not gone within LEASE_WAIT_MS. Only the deliveries whose plan asks for
 * the limit are counted (fate.ts): a test-send, and one that ends unsent, take nothing.
 */
export async function admitDeliveries(deliveries: LoadedDelivery[]): Promise<Admission> {
  const turns: (number | null | Promise<number | null>)[] = deliveries.map(() => null);
  const limited = new Map<string, number[]>();
  deliveries.forEach((d, i) => {
    if (!d.plan.limited) return;
    const list = limited.get(d.destinationId) ?? [];
    list.push(i);
    limited.set(d.destinationId, list);
  });
  const holding = new Map<string, string>();
  const queues = new Map<string, LeaseQueue>();
  const admission: Admission = {
    turns,
    holds: (id) => holding.has(id),
    ended(id) {
      const destinationId = holding.get(id);
      const queue = destinationId === undefined ? undefined : queues.get(destinationId);
      if (queue?.handOff()) holding.delete(id);
    },
    async release(deliveryIds) {
      const counts = new Map<string, number>();
      for (const id of deliveryIds) {
        const destinationId = holding.get(id);
        if (!destinationId) continue;
        holding.delete(id);
        counts.set(destinationId, (counts.get(destinationId) ?? 0) + 1);
      }
      if (counts.size > 0) await giveBack(counts);
    },
  };
  if (limited.size === 0) return admission;
  const requests: TakeRequest[] = [...limited].map(([destinationId, idx]) => ({
    destinationId,
    want: idx.length,
    limit: deliveries[idx[0]].destination.rateLimit,
  }));
  const taken = await takeRateLimited(pool(), requests, LEASE_TTL_S);
  for (const request of requests) {
    const { destinationId, want, limit } = request;
    const { granted, bookedMs } = taken.get(destinationId) ?? { granted: 0, bookedMs: 0 };
    const idx = limited.get(destinationId)!;
    const tookAt = Date.now();
    const booked = limit.perSecond === null ? [] : throttleTurns({ waiting: want - granted, bookedMs, limit });
    const queue =
      limit.concurrency !== null && want > granted
        ? new LeaseQueue({
            concurrency: limit.concurrency,
            tokens: limit.perSecond !== null,
            granted,
            take: async (n, have) => {
              const got = (await takeRateLimited(pool(), [{ ...request, want: n, have, book: false }], LEASE_TTL_S)).get(destinationId);
              return got ?? { granted: 0, tokenMs: 0 };
            },
            onLease: (id) => holding.set(id, destinationId),
            giveBack: (n) => void giveBack(new Map([[destinationId, n]])),
            // Those that give up take the turns their take booked (per second), or the concurrency's.
            turns: (waiting) =>
              limit.perSecond === null
                ? throttleTurns({ waiting, bookedMs: 0, limit })
                : booked.slice(booked.length - waiting).map((t) => Math.max(0, t - (Date.now() - tookAt))),
            pollMs: LEASE_POLL_MS,
            waitMs: LEASE_WAIT_MS,
          })
        : null;
    if (queue) queues.set(destinationId, queue);
    const waitTurns = queue ? [] : booked;
    idx.forEach((i, k) => {
      const id = deliveries[i].id;
      if (k < granted) {
        if (limit.concurrency !== null) holding.set(id, destinationId);
      } else turns[i] = queue ? queue.wait(id) : waitTurns[k - granted];
    });
  }
  return admission;
}
