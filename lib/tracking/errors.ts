/**
 * A whole request refused. Segment-compatible clients read the status (they retry 5xx/429 and
 * drop on 4xx) and show the body's message to a person, so the message names the limit.
 */
export type TrackingErrorCode =
  | "invalid_json"
  | "invalid_body"
  | "body_too_large"
  | "too_many_messages"
  | "unsupported_content_type"
  | "unsupported_encoding"
  | "invalid_utf8"
  | "unauthorized"
  | "unavailable";

const STATUS: Record<TrackingErrorCode, number> = {
  invalid_json: 400,
  invalid_body: 400,
  body_too_large: 400,
  too_many_messages: 400,
  unsupported_content_type: 400,
  unsupported_encoding: 400,
  invalid_utf8: 400,
  unauthorized: 401,
  unavailable: 503,
};

export class TrackingError extends Error {
  readonly status: number;
  constructor(
    readonly code: TrackingErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "TrackingError";
    this.status = STATUS[code];
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * True for "the database cannot take this right now" (refused, reset, pool connect timeout,
 * server shutting down or starting up, deadlock or serialization failure), as opposed to a bug
 * in a query. Those answer 503 + Retry-After: nothing was committed and a retry can succeed.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const e = err as { code?: string; message?: string; cause?: unknown; errors?: unknown[] };
  if (e.code && CONNECTION_CODES.has(e.code)) return true;
  // 08xxx connection exceptions, 57P01–57P03 admin/crash shutdown and "cannot connect now",
  // 53300 too many connections, 40001/40P01 serialization failure and deadlock.
  if (e.code && (/^08/.test(e.code) || /^57P0[1-3]$/.test(e.code) || ["53300", "40001", "40P01"].includes(e.code))) return true;
  const msg = e.message ?? "";
  if (/timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i.test(msg)) return true;
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  return e.cause !== undefined && e.cause !== err && isDatabaseUnavailable(e.cause);
}
