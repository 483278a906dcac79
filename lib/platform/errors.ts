import "server-only";
import type { FieldErrors } from "../api/field-errors";

export type { FieldErrors };

/**
 * The one error family: domain code throws an AppError with a code, and STATUS_BY_CODE maps codes to
 * HTTP statuses for both APIs. Each API keeps its own body shape: the Management API's
 * `{"error": {code, message, fields?}}` (lib/api/api-route.ts, docs/management-api.md#errors) and the
 * Tracking API's Segment-style `{"success": false, "error": {code, message}}` (lib/tracking/route-handler.ts,
 * docs/tracking-api.md#responses).
 */
export type ErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "validation_failed"
  | "payload_too_large"
  | "too_many_requests"
  | "unavailable"
  | "internal"
  // A Tracking API request refused as a whole. Segment-compatible clients read the status (they
  // retry 5xx/429 and drop on 4xx) and show the message to a person, so the message names the limit.
  | "invalid_json"
  | "invalid_body"
  | "body_too_large"
  | "too_many_messages"
  | "unsupported_content_type"
  | "unsupported_encoding"
  | "invalid_utf8"
  // The one message of /v1/track, /v1/identify… was rejected (lib/tracking/single-call.ts).
  | "invalid_message";

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: FieldErrors,
    /** For `too_many_requests`: when to try again (the answer's Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  validation_failed: 422,
  payload_too_large: 413,
  too_many_requests: 429,
  unavailable: 503,
  internal: 500,
  // Segment's clients know 400 for every malformed request, an oversized body included (not 413).
  invalid_json: 400,
  invalid_body: 400,
  body_too_large: 400,
  too_many_messages: 400,
  unsupported_content_type: 400,
  unsupported_encoding: 400,
  invalid_utf8: 400,
  invalid_message: 400,
};

/** Seconds a client should wait before retrying a 503 (`Retry-After`), in both APIs. */
export const RETRY_AFTER_SECONDS = 5;

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
/**
 * Prisma's codes for the same (its driver adapter maps pg's errors to them): server unreachable or
 * timed out, connection closed, pool timeout, write conflict or deadlock, too many connections.
 */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2034", "P2037"]);

/**
 * True for "the database cannot take this right now" (refused, reset, pool connect timeout,
 * server shutting down or starting up, deadlock or serialization failure), as opposed to a bug
 * in a query; from pg, pg-boss or Prisma alike. Both APIs answer those 503 + Retry-After: nothing
 * was committed and a retry can succeed.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const e = err as { code?: string; message?: string; cause?: unknown; errors?: unknown[]; meta?: { driverAdapterError?: unknown } };
  if (e.code && (CONNECTION_CODES.has(e.code) || PRISMA_CODES.has(e.code))) return true;
  // 08xxx connection exceptions, 57P01–57P03 admin/crash shutdown and "cannot connect now",
  // 53300 too many connections, 40001/40P01 serialization failure and deadlock.
  if (e.code && (/^08/.test(e.code) || /^57P0[1-3]$/.test(e.code) || ["53300", "40001", "40P01"].includes(e.code))) return true;
  const msg = e.message ?? "";
  if (
    /timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i.test(
      msg,
    )
  )
    return true;
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  // Prisma keeps the driver's own error (and its Postgres code) here.
  if (e.meta?.driverAdapterError && isDatabaseUnavailable(e.meta.driverAdapterError)) return true;
  return e.cause !== undefined && e.cause !== err && isDatabaseUnavailable(e.cause);
}

/** The SQLSTATE of a Postgres error, from pg itself or from Prisma's driver adapter (which keeps it as `originalCode`). */
export function postgresCodeOf(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== "object" || depth > 4) return undefined;
  const e = err as { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  for (const c of [e.originalCode, e.code]) if (typeof c === "string" && /^[0-9A-Z]{5}$/.test(c) && !/^P[1-6]\d{3}$/.test(c)) return c;
  return postgresCodeOf(e.meta?.driverAdapterError, depth + 1) ?? (e.cause !== err ? postgresCodeOf(e.cause, depth + 1) : undefined);
}

const DATA_EXCEPTIONS: Record<string, string> = {
  "22001": "A value is longer than the database can store",
  "22003": "A number is out of range",
  "22007": "A date or time is not in a form the database reads",
  "22008": "A date or time is out of range",
  "22021": "A text contains a character the database cannot store (such as NUL)",
  "22P02": "A value is not in the form the database expects",
  "22P05": "A text contains a character the database cannot store (such as NUL)",
  "54000": "A value is too large to store or index",
};

/**
 * What to tell a caller whose value Postgres refused: class 22 (data exception: NUL bytes, numbers or
 * dates out of range, malformed values) and 54000 (program limit: an index row too large). Null for
 * every other error. Both APIs answer these 4xx, never 500 (docs/management-api.md#errors).
 */
export function dataExceptionMessage(err: unknown): string | null {
  const code = postgresCodeOf(err);
  if (!code) return null;
  if (DATA_EXCEPTIONS[code]) return DATA_EXCEPTIONS[code];
  return code.startsWith("22") ? "A value in the request cannot be stored" : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * A path id that is not a uuid names nothing: 404 without asking Postgres (which would refuse the
 * comparison, and a swallowed error would hide a real outage as a 404).
 */
export function assertUuid(id: string, what: string): void {
  if (!UUID.test(id)) throw notFound(what);
}
