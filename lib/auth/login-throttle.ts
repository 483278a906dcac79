import "server-only";

/** Failed logins of an account answered at once before the delay starts to grow. */
export const FREE_FAILURES = 3;
export const MAX_FAILURE_DELAY_MS = 4_000;

/**
 * How long to hold the answer to a failed login (docs/operations.md#throttling), given how many
 * attempts the account has used in the current window (this one included): none for the first
 * three, then 250 ms doubling up to 4 s — a typo costs nothing, a guessing loop slows down — until
 * the account's limit turns further attempts into 429s.
 */
export function failureDelayMs(attemptsUsed: number): number {
  if (attemptsUsed <= FREE_FAILURES) return 0;
  return Math.min(250 * 2 ** (attemptsUsed - FREE_FAILURES - 1), MAX_FAILURE_DELAY_MS);
}
