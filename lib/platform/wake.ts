import "server-only";
/**
 * `send` run on demand, coalesced (lib/platform/queue.ts wakeWorkers): one run in flight at a
 * time, runs started at least `gapMs` apart, and always one run started after the last call. A
 * call after a quiet spell runs at once; calls in a steady stream cost one run per `gapMs`.
 */
export function coalesced(send: () => Promise<unknown>, gapMs: number, now: () => number = () => performance.now()): () => void {
  let inFlight = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastStarted = Number.NEGATIVE_INFINITY;
  const start = (): void => {
    inFlight = true;
    again = false;
    lastStarted = now();
    void send()
      .catch(() => {})
      .then(() => {
        inFlight = false;
        if (again) schedule();
      });
  };
  const schedule = (): void => {
    const wait = lastStarted + gapMs - now();
    if (wait <= 0) {
      start();
      return;
    }
    again = false;
    timer = setTimeout(() => {
      timer = null;
      start();
    }, wait);
  };
  return () => {
    if (inFlight || timer) {
      again = true;
      return;
    }
    schedule();
  };
}
