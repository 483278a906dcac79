import "server-only";

/**
 * The deliveries of one concurrency-limited destination that a batch's take did not grant, waiting
 * in the worker for a lease (docs/webhooks.md#rate-limits). A lease this batch holds goes, when its
 * round's requests end, straight to the next delivery waiting here: the lease row in Postgres
 * (rate-limit.ts) keeps its count, and one request ended before the next starts, so the destination
 * never has more than `concurrency` in flight and its backlog drains at its endpoint's pace. While
 * the batch holds fewer than `concurrency` leases (other workers hold the rest), it asks the row
 * again every `pollMs` for the ones they give back. A delivery still waiting `waitMs` after the
 * take gives up and takes a turn as a throttled round (policy.ts throttleTurns). No I/O of its own:
 * the take is passed in. docs/decisions/0120-rate-limits.md.
 */
export class LeaseQueue {
  private readonly waiters: { id: string; resolve: (turnMs: number | null) => void }[] = [];
  private held: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private polling = false;
  private readonly deadline: number;

  constructor(
    private readonly opts: {
      concurrency: number;
      /** leases the batch's take granted */
      granted: number;
      /** asks the row for up to `want` more leases; resolves with how many it got */
      take: (want: number) => Promise<number>;
      /** a waiting delivery that gets a lease: it now holds it */
      onLease: (id: string) => void;
      /** gives back leases a poll got that no delivery waits for any more */
      giveBack: (n: number) => void;
      /** the turns of the deliveries that give up, in their order (policy.ts throttleTurns) */
      turns: (waiting: number) => number[];
      pollMs: number;
      waitMs: number;
      now?: () => number;
    },
  ) {
    this.held = opts.granted;
    this.deadline = (opts.now ?? Date.now)() + opts.waitMs;
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
   * A round holding one of this queue's leases ended its requests: the lease goes to the next waiter
   * (its id returned, it holds the lease now), or, with none waiting, stays with the ended round
   * until that is recorded and gives it back (null).
   */
  handOff(): string | null {
    const next = this.waiters.shift();
    if (!next) {
      this.held--;
      this.stop();
      return null;
    }
    this.opts.onLease(next.id);
    next.resolve(null);
    if (this.waiters.length === 0) this.stop();
    return next.id;
  }

  /** Gives up on every waiter now (the deadline passed): each takes its turn. */
  private giveUp(): void {
    const left = this.waiters.splice(0);
    const turns = this.opts.turns(left.length);
    for (let k = 0; k < left.length; k++) left[k].resolve(turns[k]);
    this.stop();
  }

  private stop(): void {
    if (this.waiters.length > 0 || this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  /** The next look: a poll while leases may be freed elsewhere, else just the deadline. */
  private schedule(): void {
    if (this.timer !== null || this.polling || this.waiters.length === 0) return;
    const left = this.deadline - (this.opts.now ?? Date.now)();
    if (left <= 0) {
      this.giveUp();
      return;
    }
    const poll = this.held < this.opts.concurrency;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        if (poll) void this.poll();
        else this.schedule();
      },
      poll ? Math.min(this.opts.pollMs, left) : left,
    );
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    const want = Math.min(this.waiters.length, this.opts.concurrency - this.held);
    if (want <= 0) return this.schedule();
    this.polling = true;
    let got = 0;
    try {
      got = await this.opts.take(want);
    } catch {
      // a failed take grants nothing; the waiters give up at the deadline at the latest
    } finally {
      this.polling = false;
    }
    let k = 0;
    for (; k < got && this.waiters.length > 0; k++) {
      const next = this.waiters.shift()!;
      this.opts.onLease(next.id);
      next.resolve(null);
    }
    this.held += k;
    // Waiters served by handed-off leases while the take ran leave some of it unused: back at once.
    if (got > k) this.opts.giveBack(got - k);
    if (this.waiters.length === 0) this.stop();
    else this.schedule();
  }
}
