/**
 * Checks constructor options once, with errors that name the option, and fills defaults.
 */
import { AnalyticsError } from "./errors";
import type { AnalyticsOptions } from "./types";

export type ResolvedOptions = Required<Omit<AnalyticsOptions, "debug" | "endpoint">> & { url: URL; debug: AnalyticsOptions["debug"] };

function positiveInteger(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new AnalyticsError("invalid_options", `${name} must be an integer ≥ ${min}, got ${String(value)}`);
  return value;
}

/** `<endpoint>/v1/batch`, keeping any path prefix the endpoint has (a proxy mount point). */
export function batchUrl(endpoint: unknown): URL {
  if (typeof endpoint !== "string" || endpoint === "")
    throw new AnalyticsError("invalid_options", "endpoint is required, e.g. https://eventrail.example.com");
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new AnalyticsError("invalid_options", `endpoint is not a URL: ${endpoint}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new AnalyticsError("invalid_options", "endpoint must be an http or https URL");
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/batch`;
  url.search = "";
  url.hash = "";
  return url;
}

export function resolveOptions(writeKey: unknown, options: AnalyticsOptions | undefined): ResolvedOptions {
  if (typeof writeKey !== "string" || writeKey.trim() === "")
    throw new AnalyticsError("invalid_options", "a write key is required: new Analytics(writeKey, { endpoint })");
  const o = options ?? ({} as AnalyticsOptions);
  return {
    url: batchUrl(o.endpoint),
    flushAt: positiveInteger("flushAt", o.flushAt, 20),
    flushAfter: positiveInteger("flushAfter", o.flushAfter, 5000),
    maxQueueSize: positiveInteger("maxQueueSize", o.maxQueueSize, 10_000),
    maxRetries: positiveInteger("maxRetries", o.maxRetries, 5, 0),
    retryBaseDelay: positiveInteger("retryBaseDelay", o.retryBaseDelay, 100),
    retryMaxDelay: positiveInteger("retryMaxDelay", o.retryMaxDelay, 30_000),
    timeout: positiveInteger("timeout", o.timeout, 10_000),
    maxInFlight: positiveInteger("maxInFlight", o.maxInFlight, 4),
    debug: o.debug,
  };
}
