import "server-only";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { asyncCommitPool } from "./db";
import { AppError } from "./errors";
import { processWide, type Closing } from "./runtime";

/**
 * The throttles of docs/operations.md#throttling, counted in Postgres (the `rate_limits` table our
 * migration creates) so that they hold across any number of web processes. Each allows `points`
 * requests per `duration` seconds per subject; past that the subject is refused for `blockDuration`
 * seconds (429 with Retry-After).
 */
export const LIMITS = {
  /**
   * Failed logins per client address and account (email, known or not): the lockout a guesser meets,
   * which locks out no one else. Cleared by a successful login.
   */
  loginPair: { points: 10, duration: 15 * 60, blockDuration: 15 * 60, what: "login attempts for this account from your address" },
  /**
   * Failed logins per account from anywhere: ten times the pair's bar, so that locking an account
   * out takes a guesser at least ten addresses. Cleared by a successful login.
   */
  loginAccount: { points: 100, duration: 15 * 60, blockDuration: 15 * 60, what: "login attempts for this account" },
  /** Failed logins per client address (one success gives its point back). */
  loginAddress: { points: 50, duration: 15 * 60, blockDuration: 15 * 60, what: "login attempts from your address" },
  /** First-run setup attempts per client address (a wrong setup code included). */
  setup: { points: 20, duration: 15 * 60, blockDuration: 15 * 60, what: "setup attempts from your address" },
  /** API tokens created per workspace. */
  createToken: { points: 30, duration: 60 * 60, blockDuration: 0, what: "API tokens created in this workspace" },
  /** Requests to one capture URL (`/c/<bin>`). */
  capture: { points: 300, duration: 60, blockDuration: 0, what: "requests to this capture URL", inMemoryOnceRefused: true },
} as const;

export type LimitName = keyof typeof LIMITS;

type Limiters = Record<LimitName, RateLimiterPostgres>;

// Forgotten with the pool they query through (closeRuntime()), so that a later use makes new ones.
const CLOSING: Closing<Limiters> = {
  stage: "database",
  close: async (limiters) => {
    for (const l of Object.values(limiters))
      clearTimeout((l as unknown as { _clearExpiredTimeoutId?: NodeJS.Timeout })._clearExpiredTimeoutId);
  },
};

function limiters(): Limiters {
  return processWide(
    "rate limiters",
    () => {
      const entries = (Object.keys(LIMITS) as LimitName[]).map((name, i) => {
        const limit: { points: number; duration: number; blockDuration: number; inMemoryOnceRefused?: boolean } = LIMITS[name];
        const { points, duration, blockDuration } = limit;
        const limiter = new RateLimiterPostgres({
          // Counters: a crash of Postgres may forget the last fraction of a second's points (db.ts asyncCommitPool).
          storeClient: asyncCommitPool(),
          storeType: "pool",
          tableName: "rate_limits",
          // The table is our migration's, never created at run time.
          tableCreated: true,
          keyPrefix: name,
          points,
          duration,
          blockDuration,
          // One of them deletes every limit's counters that expired an hour ago, every 5 minutes (unref'd timer).
          clearExpiredByTimeout: i === 0,
          // A flood past the limit is then refused from memory for the rest of the window, without a
          // query each (every process learns it from its own first refusal).
          ...(limit.inMemoryOnceRefused ? { inMemoryBlockOnConsumed: points + 1 } : {}),
        });
        return [name, limiter] as const;
      });
      return Object.fromEntries(entries) as Limiters;
    },
    CLOSING,
  );
}

const retryAfterSeconds = (msBeforeNext: number) => Math.max(1, Math.ceil(msBeforeNext / 1000));

/**
 * Counts one request of `subject` against `name`: the points used so far in the window, or a
 * `too_many_requests` AppError (429 with Retry-After) once the limit is passed.
 */
export async function takePoint(name: LimitName, subject: string): Promise<{ used: number }> {
  try {
    const res = await limiters()[name].consume(subject);
    return { used: res.consumedPoints };
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const seconds = retryAfterSeconds(err.msBeforeNext);
    throw new AppError("too_many_requests", `Too many ${LIMITS[name].what}; try again in ${seconds} s`, undefined, seconds);
  }
}

/** Gives one point back (a request that turned out fine, such as a successful login). */
export async function givePointBack(name: LimitName, subject: string): Promise<void> {
  await limiters()[name].reward(subject);
}

/** Clears the subject's counter (a successful login clears the account's failures). */
export async function clearPoints(name: LimitName, subject: string): Promise<void> {
  await limiters()[name].delete(subject);
}
