import "server-only";
/**
 * When to try again (docs/webhooks.md#retries): exponential backoff with jitter starting within seconds,
 * capped per step, a receiver's Retry-After honoured (capped too), and never past the retry window.
 */

export type RetryPolicy = {
  /** first delay, before jitter (EVENTRAIL_RETRY_BASE_MS) */
  baseMs: number;
  /** longest single step (EVENTRAIL_RETRY_MAX_MS); also caps Retry-After */
  maxStepMs: number;
};

/**
 * Delay before round `attempt + 1` after `attempt` rounds (1-based): "equal jitter", i.e. half the
 * exponential step fixed and half random, so retries of many messages spread out but never collapse to 0.
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxStepMs, policy.baseMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  return Math.round(step / 2 + (step / 2) * random());
}

/**
 * The next attempt time, or null when it would fall after the window (then the delivery fails with
 * its last reason). Retry-After wins over a shorter backoff, capped at maxStepMs.
 */
export function nextAttemptAt(opts: {
  attempt: number;
  now: Date;
  firstAttemptAt: Date;
  windowMinutes: number;
  retryAfterMs?: number;
  policy: RetryPolicy;
  random?: () => number;
}): Date | null {
  let delay = backoffDelayMs(opts.attempt, opts.policy, opts.random);
  if (opts.retryAfterMs !== undefined) delay = Math.max(delay, Math.min(opts.retryAfterMs, opts.policy.maxStepMs));
  // Whole seconds: retry jobs are grouped by the second they are due in.
  const at = new Date(Math.ceil((opts.now.getTime() + delay) / 1000) * 1000);
  const deadline = opts.firstAttemptAt.getTime() + opts.windowMinutes * 60_000;
  return at.getTime() > deadline ? null : at;
}
