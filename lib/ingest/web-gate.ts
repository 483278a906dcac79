import "server-only";

export type Release = () => void;
/** Why a request got no slot: it waited its whole bound, or the queue (its own or everyone's) was full. */
export type Refusal = "timeout" | "queue_full" | "gone";

type Waiter = { grant: (r: Release) => void };

/**
 * Slots for requests passed to the web app (docs/edge.md#web-slots): at most `limit` at once, at
 * most `perAddress` of them held by one client address, and a bounded wait. Waiting requests are
 * granted round-robin across addresses, so a client that queues a hundred requests delays another
 * client's one by at most one turn. A request that waits longer than `waitMs`, or finds the queue
 * full, is refused at once (the caller answers 503 + Retry-After).
 *
 * Hand-written because the libraries at hand (p-limit, rate-limiter-flexible) bound a count or a
 * rate, not concurrency shared fairly by key; it is only bookkeeping — no I/O, no parsing.
 */
export class FairGate {
  private busy = 0;
  private readonly held = new Map<string, number>();
  /** Waiters by address, in arrival order; the Map's own order is the round-robin. */
  private readonly queues = new Map<string, Waiter[]>();
  private waiting = 0;

  constructor(
    private readonly o: { limit: number; perAddress: number; waitMs: number; maxWaiting: number; maxWaitingPerAddress: number },
  ) {}

  take(address: string, gone: AbortSignal): Promise<Release> {
    if (gone.aborted) return Promise.reject<Release>("gone");
    if (this.canGrant(address)) return Promise.resolve(this.grant(address));
    const queue = this.queues.get(address) ?? [];
    if (this.waiting >= this.o.maxWaiting || queue.length >= this.o.maxWaitingPerAddress) return Promise.reject<Release>("queue_full");
    return new Promise<Release>((resolve, reject) => {
      const leave = (why: Refusal) => {
        clearTimeout(timer);
        gone.removeEventListener("abort", onGone);
        const q = this.queues.get(address);
        const i = q ? q.indexOf(waiter) : -1;
        if (q && i !== -1) {
          q.splice(i, 1);
          this.waiting--;
          if (q.length === 0) this.queues.delete(address);
        }
        reject(why);
      };
      const onGone = () => leave("gone");
      const timer = setTimeout(() => leave("timeout"), this.o.waitMs);
      const waiter: Waiter = {
        grant: (r) => {
          clearTimeout(timer);
          gone.removeEventListener("abort", onGone);
          resolve(r);
        },
      };
      gone.addEventListener("abort", onGone, { once: true });
      queue.push(waiter);
      this.queues.set(address, queue);
      this.waiting++;
    });
  }

  get limit(): number {
    return this.o.limit;
  }

  /** Requests holding a slot, and waiting for one. */
  get stats() {
    return { busy: this.busy, waiting: this.waiting };
  }

  private canGrant(address: string): boolean {
    return this.busy < this.o.limit && (this.held.get(address) ?? 0) < this.o.perAddress;
  }

  private grant(address: string): Release {
    this.busy++;
    this.held.set(address, (this.held.get(address) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      const n = (this.held.get(address) ?? 1) - 1;
      if (n === 0) this.held.delete(address);
      else this.held.set(address, n);
      this.next();
    };
  }

  /** Grants free slots to the first waiting addresses that may hold one more; each served address moves to the back. */
  private next(): void {
    for (const [address, queue] of this.queues) {
      if (this.busy >= this.o.limit) return;
      if (!this.canGrant(address)) continue;
      const waiter = queue.shift()!;
      this.waiting--;
      this.queues.delete(address);
      if (queue.length > 0) this.queues.set(address, queue);
      waiter.grant(this.grant(address));
    }
  }
}
