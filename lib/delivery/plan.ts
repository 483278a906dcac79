import "server-only";
/**
 * What a round of HTTP attempts means for a delivery (docs/webhooks.md#modes, #retries).
 * Pure: no I/O, no clock (now is passed in), no randomness (the policy's random is).
 */
import { nextAttemptAt, type RetryPolicy } from "../webhooks/backoff";
import type { Classification } from "../webhooks/outcome";

export type Mode = "any" | "every";

/**
 * One URL of a round: attempted (with its classification and status) or deferred (no slot; not an
 * attempt), with the turn its origin gave it (policy.ts deferTurnMs) when it has one.
 */
export type UrlResult =
  | {
      url: string;
      attempted: true;
      classification: Classification;
      status: number | null;
      /** where it went when that is not `url` (a rendered URL template): the error names it, not the template */
      sentTo?: string;
      /** a retry's turn behind the requests its origin deferred (policy.ts retryTurnMs), when it has some waiting */
      turnInMs?: number;
    }
  | { url: string; attempted: false; turnInMs?: number };

export type RoundDecision = {
  state: "pending" | "delivered" | "failed";
  pendingUrls: string[];
  nextAttemptAt: Date | null;
  lastError: string | null;
  lastStatus: number | null;
  /** per attempted URL: the outcome to log (a retryable error that will not be retried is logged `failed`) */
  loggedOutcome: Map<string, "success" | "retry" | "failed">;
  /** true when the round made at least one HTTP attempt (the delivery's round count, column attempt_count, advances) */
  attempted: boolean;
};

/** URLs to try this round: the ones still pending, limited to the destination's current URLs. */
export function roundUrls(destinationUrls: string[], pendingUrls: string[] | null): string[] {
  const pending = (pendingUrls ?? []).filter((u) => destinationUrls.includes(u));
  return pending.length > 0 ? pending : destinationUrls;
}

/** When every URL of a round was deferred, try again this soon (no attempt was made). */
export const DEFER_MS = 1_000;

export function decideRound(opts: {
  mode: Mode;
  results: UrlResult[];
  /** `every`: a URL already failed for good earlier in this chain */
  someUrlFailedBefore: boolean;
  /** rounds made before this one (that made at least one HTTP request) */
  rounds: number;
  firstAttemptAt: Date;
  now: Date;
  windowMinutes: number;
  policy: RetryPolicy;
  random?: () => number;
  lastStatusBefore?: number | null;
  lastErrorBefore?: string | null;
  /** false for a test-send: an attempt that would be retried fails instead (a deferred URL still comes back) */
  retries?: boolean;
}): RoundDecision {
  const { results, now } = opts;
  const loggedOutcome = new Map<string, "success" | "retry" | "failed">();
  const attemptedResults = results.filter((r) => r.attempted);
  const attempted = attemptedResults.length > 0;
  const multi = results.length > 1;
  const reason = (r: UrlResult & { attempted: true }) =>
    multi ? `${r.sentTo ?? r.url}: ${r.classification.errorText}` : r.classification.errorText;

  const retries = opts.retries !== false;
  for (const r of attemptedResults)
    loggedOutcome.set(r.url, !retries && r.classification.outcome === "retry" ? "failed" : r.classification.outcome);

  if (!attempted) {
    // Not sooner than DEFER_MS, nor before the latest turn its origins gave it.
    const wait = Math.max(DEFER_MS, ...results.map((r) => (r.attempted ? 0 : (r.turnInMs ?? 0))));
    return {
      state: "pending",
      pendingUrls: results.map((r) => r.url),
      nextAttemptAt: new Date(Math.ceil((now.getTime() + wait) / 1000) * 1000),
      lastError: null,
      lastStatus: opts.lastStatusBefore ?? null,
      loggedOutcome,
      attempted,
    };
  }

  const succeeded = attemptedResults.filter((r) => r.classification.outcome === "success");
  const failedNow = attemptedResults.filter((r) => loggedOutcome.get(r.url) === "failed");
  const toRetry = results.filter((r) => !r.attempted || loggedOutcome.get(r.url) === "retry");
  const firstFailure = attemptedResults.find((r) => r.classification.outcome !== "success");
  const lastError = firstFailure ? reason(firstFailure) : null;
  // The status goes with the state it explains: a delivered delivery shows the 2xx that delivered
  // it, never a sibling URL's 500; otherwise the status of the failure `lastError` describes
  // (null when that one got no response), or the earlier one when this round had no failure.
  const lastStatus = firstFailure ? firstFailure.status : (opts.lastStatusBefore ?? null);

  const finish = (state: "delivered" | "failed", error: string | null): RoundDecision => {
    // Nothing will retry these: log them as failed.
    for (const r of attemptedResults) if (r.classification.outcome === "retry") loggedOutcome.set(r.url, "failed");
    const status = state === "delivered" ? (succeeded[0]?.status ?? lastStatus) : lastStatus;
    return { state, pendingUrls: [], nextAttemptAt: null, lastError: error, lastStatus: status, loggedOutcome, attempted };
  };

  if (opts.mode === "any" && succeeded.length > 0) return finish("delivered", null);
  const failedEver = failedNow.length > 0 || (opts.mode === "every" && opts.someUrlFailedBefore);
  if (toRetry.length === 0) {
    if (opts.mode === "every" && !failedEver) return finish("delivered", null);
    return finish("failed", lastError ?? opts.lastErrorBefore ?? "a URL failed earlier in this attempt chain");
  }

  const retryAfters = toRetry.flatMap((r) =>
    r.attempted && r.classification.retryAfterMs !== undefined ? [r.classification.retryAfterMs] : [],
  );
  const next = nextAttemptAt({
    attempt: opts.rounds + 1,
    now,
    firstAttemptAt: opts.firstAttemptAt,
    windowMinutes: opts.windowMinutes,
    retryAfterMs: retryAfters.length ? Math.max(...retryAfters) : undefined,
    policy: opts.policy,
    random: opts.random,
  });
  if (!next) return finish("failed", `${lastError ?? "not delivered"} (retry window of ${opts.windowMinutes} min ended)`);
  // Not before the turn an origin gave (a saturated origin's deferred requests go first); a turn past
  // the window still gets that attempt, as a deferred round does.
  const turn = Math.max(0, ...toRetry.map((r) => r.turnInMs ?? 0));
  const nextAt = turn > 0 ? new Date(Math.max(next.getTime(), Math.ceil((now.getTime() + turn) / 1000) * 1000)) : next;
  return {
    state: "pending",
    pendingUrls: toRetry.map((r) => r.url),
    nextAttemptAt: nextAt,
    lastError,
    lastStatus,
    loggedOutcome,
    attempted,
  };
}
