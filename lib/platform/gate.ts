import "server-only";

/**
 * Lets at most `slots` calls of some work run at once in this process; the others wait their turn,
 * in order, and once `maxWaiting` are already waiting a further call is turned away at once (`run`
 * resolves to `{ turnedAway: true }`) instead of piling up. Used where anonymous callers can ask for
 * expensive work (password hashing, logins): a flood then holds a bounded share of the CPU and of
 * the database pool, and everything else keeps its share.
 */
export function createGate(opts: {
  slots: number;
  maxWaiting: number;
  /**
   * After a call, its slot rests this many times as long as the call took before the next waiter
   * gets it (the caller has its answer at once): with 1, a queue of work gets at most half of each
   * slot's time. Idle slots are free at once, so a lone call never waits.
   */
  restRatio?: number;
}) {
  let running = 0;
  const waiting: (() => void)[] = [];
  // The slot passes straight to the next waiter; otherwise it is freed.
  const handOver = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<{ turnedAway: true } | { turnedAway: false; value: T }> {
      if (running < opts.slots) running++;
      else if (waiting.length >= opts.maxWaiting) return { turnedAway: true };
      else await new Promise<void>((resolve) => waiting.push(resolve));
      const started = performance.now();
      try {
        return { turnedAway: false, value: await work() };
      } finally {
        const restMs = (performance.now() - started) * (opts.restRatio ?? 0);
        if (restMs > 0 && waiting.length > 0) setTimeout(handOver, restMs);
        else handOver();
      }
    },
    /** Calls running and waiting now (for tests). */
    get load() {
      return { running, waiting: waiting.length };
    },
  };
}
