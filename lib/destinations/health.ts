import "server-only";
import type { EndpointHealth, EndpointState } from "./contract";

/**
 * Endpoint health of one destination URL, judged from its most recent attempts (pure: the attempts
 * are passed in, newest first). A URL that keeps failing is `unhealthy`; one that fails now and then
 * (or has just started failing) is `degraded`; with no recent attempt it is `unknown`. The DTO it
 * produces is declared in ./contract.
 */

/** One recent attempt at a URL, as the judgement needs it. */
export type RecentAttempt = {
  outcome: string;
  startedAt: string;
  errorKind: string | null;
  errorText: string | null;
  responseStatus: number | null;
};

export const SAMPLE_PER_URL = 50;
export const WINDOW_HOURS = 24;
/** This many failures in a row with no success in between: unhealthy. */
export const UNHEALTHY_AFTER = 5;
/** Below this success rate (or any failure since the last success): degraded. */
export const DEGRADED_BELOW = 0.9;

export const describeError = (a: RecentAttempt): string =>
  a.errorKind && a.errorKind !== "http"
    ? `${a.errorKind}: ${a.errorText ?? ""}`.trim()
    : a.responseStatus !== null
      ? `HTTP ${a.responseStatus}`
      : (a.errorText ?? "failed");

export function computeEndpointHealth(url: string, newestFirst: RecentAttempt[]): EndpointHealth {
  const sample = newestFirst.slice(0, SAMPLE_PER_URL);
  const successes = sample.filter((a) => a.outcome === "success").length;
  const firstSuccess = sample.findIndex((a) => a.outcome === "success");
  const consecutiveFailures = firstSuccess === -1 ? sample.length : firstSuccess;
  const lastFailure = sample.find((a) => a.outcome !== "success");
  const successRate = sample.length ? successes / sample.length : null;
  let state: EndpointState = "unknown";
  if (sample.length > 0) {
    if (consecutiveFailures >= UNHEALTHY_AFTER) state = "unhealthy";
    else if (consecutiveFailures > 0 || successRate! < DEGRADED_BELOW) state = "degraded";
    else state = "healthy";
  }
  return {
    url,
    state,
    attempts: sample.length,
    successRate,
    consecutiveFailures,
    lastSuccessAt: firstSuccess === -1 ? null : sample[firstSuccess].startedAt,
    lastFailureAt: lastFailure?.startedAt ?? null,
    lastError: lastFailure ? describeError(lastFailure) : null,
  };
}
