/**
 * Caps concurrent requests per origin so that a slow or dead endpoint holds at most `max` of our
 * connections, and a request that cannot get a slot within `maxWaitMs` is handed back (deferred)
 * instead of holding its whole batch hostage behind a queue of 5-second timeouts.
 */
export class OriginLimiter {
  private active = new Map<string, number>();
  private waiting = new Map<string, (() => void)[]>();

  constructor(
    private readonly max: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Resolves to a release function, or null when no slot freed up in time. */
  async acquire(origin: string): Promise<(() => void) | null> {
    const n = this.active.get(origin) ?? 0;
    if (n < this.max) {
      this.active.set(origin, n + 1);
      return this.releaser(origin);
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(origin) ?? [];
      this.waiting.set(origin, queue);
      const grant = () => {
        clearTimeout(timer);
        resolve(this.releaser(origin));
      };
      const timer = setTimeout(() => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        resolve(null);
      }, this.maxWaitMs);
      queue.push(grant);
    });
  }

  private releaser(origin: string) {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.get(origin)?.shift();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next) return next();
      const n = (this.active.get(origin) ?? 1) - 1;
      if (n <= 0) {
        this.active.delete(origin);
        this.waiting.delete(origin);
      } else this.active.set(origin, n);
    };
  }
}
