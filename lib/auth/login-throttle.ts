import "server-only";

/** Failed logins of an address on an account answered without extra delay before the delay starts to grow. */
export const FREE_FAILURES = 3;
export const MAX_FAILURE_DELAY_MS = 4_000;
/**
 * A failed login is answered this long after it arrived at the earliest, whether or not the account
 * exists (docs/operations.md#throttling): it covers the work that differs between the two (a real
 * account's failure writes audit rows), so the answer's timing does not tell which accounts exist.
 */
export const FAILED_LOGIN_MIN_MS = 400;

/**
 * The growing part of a failed login's delay, given how many attempts this address has used on this
 * account in the current window (this one included): none for the first three, then 250 ms doubling
 * up to 4 s — a typo costs nothing more, a guessing loop slows down — until the pair's limit turns
 * further attempts into 429s.
 */
export function failureDelayMs(attemptsUsed: number): number {
  if (attemptsUsed <= FREE_FAILURES) return 0;
  return Math.min(250 * 2 ** (attemptsUsed - FREE_FAILURES - 1), MAX_FAILURE_DELAY_MS);
}

/** How much longer to hold a failed login that has taken `elapsedMs` so far. */
export function failedLoginWaitMs(attemptsUsed: number, elapsedMs: number): number {
  return Math.max(0, FAILED_LOGIN_MIN_MS + failureDelayMs(attemptsUsed) - elapsedMs);
}

/** The subject of the per address-and-account limit: addresses hold no "/", so the first one ends it. */
export const loginPairKey = (address: string, email: string) => `${address}/${email}`;
