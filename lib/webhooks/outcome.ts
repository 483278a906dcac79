import "server-only";
/**
 * Classifies one HTTP attempt (docs/webhooks.md#outcomes). Pure: takes what happened, says what it means.
 */

export type Outcome = "success" | "retry" | "failed";
/** timeout | connection | dns | tls | ssrf | http | internal | auth (the endpoint's token request failed, docs/endpoint-auth.md) */
export type ErrorKind = "timeout" | "connection" | "dns" | "tls" | "ssrf" | "http" | "internal" | "auth" | "interrupted";

/** What one attempt produced: a response, or an error before/while getting one. */
export type AttemptResult =
  | { kind: "response"; status: number; headers: Record<string, string>; body: string }
  | {
      kind: "error";
      errorKind: Exclude<ErrorKind, "http">;
      message: string;
      /** the receiver refused the client certificate presented (docs/endpoint-auth.md#rotation) */
      clientCertRefused?: true;
    };

export type Classification = {
  outcome: Outcome;
  errorKind: ErrorKind | null;
  errorText: string | null;
  /** Retry-After from a 429/503, in ms, when the receiver asked for a delay */
  retryAfterMs?: number;
};

/** Besides every 5xx (the seed: "Response with a 5xx status: the request is retried", 501 and 505 included). */
const RETRIED_STATUSES = new Set([408, 429]);

export function classifyAttempt(result: AttemptResult, now: Date = new Date()): Classification {
  if (result.kind === "error") {
    // Certificates that do not verify and refused targets will not fix themselves: fail at once.
    const permanent = result.errorKind === "tls" || result.errorKind === "ssrf" || result.errorKind === "internal";
    return { outcome: permanent ? "failed" : "retry", errorKind: result.errorKind, errorText: result.message };
  }
  const { status } = result;
  if (status >= 200 && status < 300) return { outcome: "success", errorKind: null, errorText: null };
  const errorText = `HTTP ${status}`;
  if ((status >= 500 && status < 600) || RETRIED_STATUSES.has(status)) {
    const retryAfterMs = parseRetryAfter(headerValue(result.headers, "retry-after"), now);
    return { outcome: "retry", errorKind: "http", errorText, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  // 3xx (never followed), other 4xx, 1xx leftovers, statuses past 599.
  const why = status >= 300 && status < 400 ? `${errorText} (redirects are not followed)` : errorText;
  return { outcome: "failed", errorKind: "http", errorText: why };
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** Retry-After as delay-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** Maps a network error (Node/undici codes) to an error kind. */
export function errorKindOf(err: unknown): Exclude<ErrorKind, "http" | "auth"> {
  const code = (err as { code?: string; cause?: { code?: string } })?.code ?? (err as { cause?: { code?: string } })?.cause?.code ?? "";
  const name = (err as Error)?.name ?? "";
  if (name === "AbortError" || name === "TimeoutError" || /TIMEOUT/.test(code)) return "timeout";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NODATA" || code === "EAI_FAIL") return "dns";
  if (TLS_CODES.has(code) || code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL") || /CERT/.test(code)) return "tls";
  if (code === "ERR_EVENTRAIL_SSRF") return "ssrf";
  return "connection";
}

const TLS_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "EPROTO",
]);
