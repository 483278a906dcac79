import "server-only";

/**
 * The deliveries of one concurrency-limited destination that a batch's take did not grant, waiting
 * in the worker for a lease (docs/webhooks.md#rate-limits). A lease this batch holds goes on, when
 * its round's requests end, to the next delivery waiting here: the lease row in Postgres
 * (rate-limit.ts) keeps its count, and one request ended before the next starts, so the destination
 * never has more than `concurrency` in flight and its backlog drains at its endpoint's pace. With a
 * per-second limit too (`tokens`), each delivery that goes also needs a token of the shared bucket:
 * the ended round's lease stays idle here until a take (with `have` the idle leases) grants the
 * tokens, at once while the bucket holds some, else when its next token is due; no token is taken
 * before a lease is there to use it, so the bucket's pace holds. While the batch holds fewer than
 * `concurrency` leases (other workers hold the rest), it asks the row again every `pollMs` for the
 * ones they give back. A delivery still waiting `waitMs` after the take gives up and takes its turn
 * as a throttled round (policy.ts throttleTurns). No I/O of its own: the take is passed in.
 * docs/decisions/0120-rate-limits.md.
 */
export class LeaseQueue {
  private readonly waiters: { id: string; resolve: (turnMs: number | null) => void }[] = [];
  /** leases this batch holds for the destination: in flight, or idle here */
  private held: number;
  /** held leases whose round ended, waiting here for a token (`tokens` only) */
  private idle = 0;
  /** when the bucket holds a whole token again, as the last take short of tokens said (ms, the clock of `now`) */
  private tokenAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  private polling = false;
  private readonly deadline: number;
  private readonly now: () => number;

  constructor(
    private readonly opts: {
      concurrency: number;
      /** whether each delivery that goes takes a token too (the destination has a per-second limit) */
      tokens: boolean;
      /** leases the batch's take granted */
      granted: number;
      /**
       * asks the row for up to `want` deliveries' leases (and tokens), `have` of them idle leases
       * held here; resolves with how many it got (idle ones used first) and, when the bucket is
       * short, the ms until its next token
       */
      take: (want: number, have: number) => Promise<{ granted: number; tokenMs: number }>;
      /** a waiting delivery that gets a lease: it now holds it */
      onLease: (id: string) => void;
      /** gives back leases held here that no delivery waits for any more */
      giveBack: (n: number) => void;
      /** the turns of the deliveries that give up, in their order (policy.ts throttleTurns) */
      turns: (waiting: number) => number[];
      pollMs: number;
      waitMs: number;
      now?: () => number;
    },
  ) {
    this.held = opts.granted;
    this.now = opts.now ?? Date.now;
    this.deadline = this.now() + opts.waitMs;
  }

  /** Waits for a lease: resolves null when one is handed over (the round goes), or the ms to its turn when it gave up. */
  wait(id: string): Promise<number | null> {
    const p = new Promise<number | null>((resolve) => this.waiters.push({ id, resolve }));
    this.schedule();
    return p;
  }

  /** How many wait. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * A round holding one of this queue's leases ended its requests. With someone waiting, the lease
   * leaves the round (true): straight to the next waiter (it holds the lease now), or, when a token
   * is needed too, idle here until a take grants one. With none waiting it stays with the ended round
   * until that is recorded and gives it back (false).
   */
  handOff(): boolean {
    if (this.waiters.length === 0) {
      this.held--;
      return false;
    }
    if (this.opts.tokens) {
      this.idle++;
      this.schedule(true);
      return true;
    }
    const next = this.waiters.shift()!;
    this.opts.onLease(next.id);
    next.resolve(null);
    this.settle();
    return true;
  }

  /** Gives up on every waiter now (the deadline passed): each takes its turn. */
  private giveUp(): void {
    const left = this.waiters.splice(0);
    const turns = this.opts.turns(left.length);
    for (let k = 0; k < left.length; k++) left[k].resolve(turns[k]);
    this.settle();
  }

  /** With nobody waiting: no more looks, and the idle leases go back. */
  private settle(): void {
    if (this.waiters.length > 0) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.idle > 0) this.release(this.idle);
  }

  /**
   * The next look: a take while a lease is idle here (at once, or when the bucket has a token again)
   * or leases may be freed elsewhere (every pollMs), else just the deadline. `sooner`: a lease just went idle, so a
   * look already set for later is brought forward.
   */
  private schedule(sooner = false): void {
    if (this.polling || this.waiters.length === 0) return;
    const now = this.now();
    const left = this.deadline - now;
    if (left <= 0) {
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      this.giveUp();
      return;
    }
    const poll = this.idle > 0 || this.held < this.opts.concurrency;
    const delay = poll ? Math.min(left, Math.max(this.tokenAt - now, this.idle > 0 ? 0 : this.opts.pollMs)) : left;
    if (this.timer !== null) {
      if (!sooner || now + delay >= this.timerAt) return;
      clearTimeout(this.timer);
    }
    this.timerAt = now + delay;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (poll) void this.poll();
      else this.schedule();
    }, delay);
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    const want = Math.min(this.waiters.length, this.idle + this.opts.concurrency - this.held);
    if (want <= 0) return this.schedule();
    const have = Math.min(this.idle, want);
    this.polling = true;
    let got: { granted: number; tokenMs: number } | null = null;
    try {
      got = await this.opts.take(want, have);
    } catch {
      // a failed take grants nothing; the waiters give up at the deadline at the latest
    } finally {
      this.polling = false;
    }
    if (got === null) {
      this.tokenAt = this.now() + this.opts.pollMs;
      return this.schedule();
    }
    this.tokenAt = got.granted < want && got.tokenMs > 0 ? this.now() + got.tokenMs : 0;
    // The idle leases are used first; the rest of the grant are new leases. Idle ones not granted
    // with tokens to spare are over the limit (lowered since they were taken): they go back.
    const fromIdle = Math.min(got.granted, have);
    this.idle -= fromIdle;
    this.held += got.granted - fromIdle;
    if (fromIdle < have && got.tokenMs === 0) this.release(have - fromIdle);
    let k = 0;
    for (; k < got.granted && this.waiters.length > 0; k++) {
      const next = this.waiters.shift()!;
      this.opts.onLease(next.id);
      next.resolve(null);
    }
    // Waiters served by handed-off leases while the take ran leave some of it unused: back at once.
    if (got.granted > k) {
      this.opts.giveBack(got.granted - k);
      this.held -= got.granted - k;
    }
    if (this.waiters.length === 0) this.settle();
    else this.schedule();
  }

  /** Gives back `n` idle leases. */
  private release(n: number): void {
    this.opts.giveBack(n);
    this.held -= n;
    this.idle -= n;
  }
}
