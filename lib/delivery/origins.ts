import "server-only";

/**
 * The per-origin limiter (docs/webhooks.md#endpoint-isolation): the mechanism that caps each
 * origin's concurrent requests and judges its pace. The slow-endpoint policy built on it (the
 * limits, deferral, which rounds a batch stops waiting for, the lanes) is policy.ts.
 */

/**
 * Caps concurrent requests per origin so that a slow or dead endpoint holds at most `max` of our
 * connections. A request that would have to queue behind a slow origin is handed back at once
 * (deferred, to be retried shortly without counting as an attempt) instead of holding its whole
 * batch behind a queue of 5-second timeouts. "Slow" (isSlow, at `maxWaitMs / 6`) is judged from
 * the origin's recent request durations and its oldest request in flight: a healthy origin queues
 * however long its queue, since it drains and deferring would only load, wait and send the round
 * again; a hanging one is deferred. A waiter still waiting after `maxWaitMs * 3` (the origin turned
 * slow after it queued) is deferred too.
 */
type OriginState = {
  active: number;
  /** oldest first, so also by the time each is deferred at */
  waiting: Waiter[];
  /** one timer per origin for its waiters' deferral, due at the oldest one's (armWaitTimer) */
  waitTimer: NodeJS.Timeout | null;
  avgMs: number;
  /** start times of the requests in flight, oldest first (a Map keeps insertion order; ends may come in any order) */
  started: Map<number, number>;
  /** the latest turn handed to a deferred request (deferTurnMs), performance.now() ms */
  lastTurn: number;
  /** whether a request of its has ended yet: until then its pace is unknown (isSlow) */
  answered: boolean;
};

/** A queued request: resolved with its slot's releaser, or null once it waited `maxWaitMs * 3` (at deferAt, performance.now() ms). */
type Waiter = { resolve: (release: ((durationMs?: number) => void) | null) => void; deferAt: number };

/** Weight of the newest duration in the moving average. */
const ALPHA = 0.2;
/**
 * An origin that has not answered yet is judged slow at this share of the bar (isSlow): a newly dead
 * endpoint is found out before the batches fetched meanwhile use up the worker's slots waiting for it.
 */
const UNANSWERED_BAR = 0.4;
/** Origins remembered (their pace) while idle; past this many, the idle ones are forgotten. */
const MAX_REMEMBERED = 1_000;

export class OriginLimiter {
  private origins = new Map<string, OriginState>();
  private nextTicket = 0;

  constructor(
    private readonly max: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Resolves to a release function (call it with the request's duration), or null: defer. */
  async acquire(origin: string): Promise<((durationMs?: number) => void) | null> {
    let s = this.origins.get(origin);
    if (!s) {
      if (this.origins.size >= MAX_REMEMBERED) this.forgetIdle();
      s = { active: 0, waiting: [], waitTimer: null, avgMs: 0, started: new Map(), lastTurn: 0, answered: false };
      this.origins.set(origin, s);
    }
    if (s.active < this.max) {
      s.active++;
      return this.releaser(s);
    }
    if (this.isSlow(origin, this.maxWaitMs / 6)) return null;
    const state = s;
    return new Promise((resolve) => {
      state.waiting.push({ resolve, deferAt: performance.now() + this.maxWaitMs * 3 });
      if (!state.waitTimer) armWaitTimer(state);
    });
  }

  /**
   * Whether the origin is known to be slow right now: its recent requests took longer than `ms` on
   * average, or one of its requests has been in flight for longer than `ms` and four times its
   * average (a hanging endpoint shows as slow within `ms`, not only once its first 5 s timeouts end;
   * a healthy one answering slower because the machine is loaded does not). An origin that has not
   * answered yet has no average: its oldest request is judged at UNANSWERED_BAR × `ms`.
   */
  isSlow(origin: string, ms: number, now = performance.now()): boolean {
    const s = this.origins.get(origin);
    if (!s) return false;
    if (s.avgMs > ms) return true;
    const oldest = s.started.values().next();
    return !oldest.done && now - oldest.value > (s.answered ? Math.max(ms, 4 * s.avgMs) : ms * UNANSWERED_BAR);
  }

  /**
   * When a request the origin deferred (acquire gave null) should come back, in ms from now: its turn
   * at the pace the origin takes requests — `max` at a time, each as long as its average (or as its
   * oldest request in flight, for an origin that has not answered yet) — one turn after the previous
   * deferred request's, at most `capMs` ahead. A deferral is not an attempt: coming back sooner only
   * loads, defers and records the delivery again, taking CPU and batch slots that healthy
   * destinations need.
   */
  deferTurnMs(origin: string, capMs: number, now = performance.now()): number {
    const s = this.origins.get(origin);
    if (!s) return 0;
    const oldest = s.started.values().next();
    const duration = Math.max(s.avgMs, oldest.done ? 0 : now - oldest.value);
    const turn = Math.min(Math.max(now, s.lastTurn) + duration / this.max, now + capMs);
    s.lastTurn = turn;
    return turn - now;
  }

  /**
   * When a request that just failed at the origin should be retried at the earliest, in ms from now:
   * while requests it deferred wait for turns ahead (deferTurnMs), the retry takes the next turn
   * too, behind them; otherwise 0 (its backoff alone decides), so that a dead endpoint's deliveries
   * just attempted do not come back ahead of those still waiting for their first attempt.
   */
  retryTurnMs(origin: string, capMs: number, now = performance.now()): number {
    const s = this.origins.get(origin);
    if (!s || s.lastTurn <= now) return 0;
    return this.deferTurnMs(origin, capMs, now);
  }

  /**
   * How long the requests queued for the origin will take to get a slot, at its recent pace: the
   * queue, `max` at a time, each as long as the average. 0 for an origin with no queue.
   */
  backlogMs(origin: string): number {
    const s = this.origins.get(origin);
    return s ? (s.waiting.length / this.max) * s.avgMs : 0;
  }

  private releaser(s: OriginState) {
    let done = false;
    const ticket = this.nextTicket++;
    s.started.set(ticket, performance.now());
    return (durationMs?: number) => {
      if (done) return;
      done = true;
      s.started.delete(ticket);
      if (durationMs !== undefined) {
        s.avgMs = s.answered ? s.avgMs + ALPHA * (durationMs - s.avgMs) : durationMs;
        s.answered = true;
      }
      const next = s.waiting.shift();
      if (s.waiting.length === 0 && s.waitTimer) {
        clearTimeout(s.waitTimer);
        s.waitTimer = null;
      }
      // The slot passes straight to the next waiter; otherwise it is freed. An idle origin keeps its
      // pace: forgotten, a healthy endpoint that answers in 300 ms would count as unanswered again
      // at its next request, and be judged slow at the lower bar.
      if (next) return next.resolve(this.releaser(s));
      s.active--;
    };
  }

  /** Forgets the origins with nothing in flight or queued (a bound on memory, not a cache policy). */
  private forgetIdle(): void {
    for (const [origin, s] of this.origins) if (s.active <= 0 && s.waiting.length === 0) this.origins.delete(origin);
  }
}

/**
 * Arms the origin's one waiter timer for its oldest waiter's deferral (none when nobody waits): one
 * timer per origin, not per queued request, of which a batch may queue thousands (docs/webhooks.md#delivery-cost).
 */
function armWaitTimer(s: OriginState): void {
  const oldest = s.waiting[0];
  s.waitTimer = oldest ? setTimeout(() => deferOverdue(s), Math.max(0, oldest.deferAt - performance.now())) : null;
}

/** Defers (null) every waiter that has waited its time, oldest first, and re-arms for the next. */
function deferOverdue(s: OriginState): void {
  const now = performance.now();
  while (s.waiting.length > 0 && s.waiting[0].deferAt <= now) s.waiting.shift()!.resolve(null);
  armWaitTimer(s);
}
