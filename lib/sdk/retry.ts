/**
 * Retry policy, pure: which outcomes are worth another attempt and how long to wait before it.
 */

/** Retry-After values are honoured up to this bound, so a misconfigured server cannot park a batch for hours. */
export const MAX_RETRY_AFTER_MS = 300_000;

export type Verdict = "ok" | "retry" | "fail";

/** 2xx is acknowledged; 408, 429 and 5xx are transient; any other 4xx will not improve by resending. */
export function classifyStatus(status: number): Verdict {
  if (status >= 200 && status < 300) return "ok";
  if (status === 408 || status === 429 || status >= 500) return "retry";
  return "fail";
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}

export type BackoffOptions = { baseMs: number; maxMs: number };

/**
 * Exponential backoff with "equal jitter": half the exponential delay is fixed, half random, so retries
 * of many clients spread out while each still waits a growing minimum. `retry` counts from 1.
 */
export function backoffDelay(retry: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const exponential = Math.min(opts.maxMs, opts.baseMs * 2 ** (retry - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** The wait before retry number `retry`: the backoff, or longer when the server asked for it. */
export function retryDelay(retry: number, retryAfterMs: number | undefined, opts: BackoffOptions, random?: () => number): number {
  return Math.max(backoffDelay(retry, opts, random), retryAfterMs ?? 0);
}
