/**
 * Turns a call's parameters into the wire message: validates (throwing at the call, where the mistake
 * is), stamps type/messageId/timestamp, and serializes once so the size check and the batch body share
 * the same JSON. Pure apart from the injected clock and id source.
 */
import { AnalyticsError } from "./errors";
import type { Integrations, JsonObject, MessageType } from "./types";

/** Segment's per-message limit, in bytes of serialized JSON. */
export const MAX_MESSAGE_BYTES = 32 * 1024;
export const MAX_MESSAGE_ID_LENGTH = 100;
export const LIBRARY = { name: "eventrail-analytics", version: "0.1.0" } as const;

/** A message ready for a batch: only its JSON is kept, to hold as little memory as possible. */
export type QueuedMessage = { messageId: string; type: MessageType; json: string; bytes: number };

export type Stamp = { now: () => Date; newId: () => string };

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

function fail(type: MessageType, what: string): never {
  throw new AnalyticsError("invalid_message", `${type}: ${what}`);
}

const isPlainObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const isNonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0;

function checkOptionalString(type: MessageType, params: JsonObject, key: string): void {
  if (params[key] !== undefined && typeof params[key] !== "string") fail(type, `${key} must be a string`);
}

function checkOptionalObject(type: MessageType, params: JsonObject, key: string): void {
  if (params[key] !== undefined && !isPlainObject(params[key])) fail(type, `${key} must be an object`);
}

function checkIntegrations(type: MessageType, value: unknown): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) fail(type, "integrations must be an object of destination name → boolean");
  for (const [name, setting] of Object.entries(value as Integrations)) {
    if (typeof setting !== "boolean" && !isPlainObject(setting))
      fail(type, `integrations.${name} must be a boolean (or an object of settings)`);
  }
}

function normaliseTimestamp(type: MessageType, value: unknown, now: () => Date): string {
  if (value === undefined) return now().toISOString();
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) fail(type, "timestamp is an invalid Date");
    return value.toISOString();
  }
  if (typeof value === "string" && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return fail(type, `timestamp must be a Date or an ISO 8601 string, got ${JSON.stringify(value)}`);
}

function checkIdentity(type: MessageType, params: JsonObject): void {
  checkOptionalString(type, params, "userId");
  checkOptionalString(type, params, "anonymousId");
  if (type === "alias") {
    if (!isNonEmptyString(params.userId)) fail(type, "userId is required");
    if (!isNonEmptyString(params.previousId)) fail(type, "previousId is required");
    return;
  }
  if (!isNonEmptyString(params.userId) && !isNonEmptyString(params.anonymousId)) fail(type, "userId or anonymousId is required");
}

function checkTypeFields(type: MessageType, params: JsonObject): void {
  if (type === "track" && !isNonEmptyString(params.event)) fail(type, "event is required (a non-empty string)");
  if (type === "group" && !isNonEmptyString(params.groupId)) fail(type, "groupId is required (a non-empty string)");
  for (const key of ["name", "category"]) checkOptionalString(type, params, key);
  for (const key of ["traits", "properties", "context"]) checkOptionalObject(type, params, key);
}

/** Validates and serializes one call. Throws AnalyticsError; returns nothing half-built. */
export function buildMessage(type: MessageType, params: unknown, stamp: Stamp): QueuedMessage {
  if (!isPlainObject(params)) fail(type, "expected an object of message fields");
  checkIdentity(type, params);
  checkTypeFields(type, params);
  checkIntegrations(type, params.integrations);
  if (params.messageId !== undefined && (!isNonEmptyString(params.messageId) || params.messageId.length > MAX_MESSAGE_ID_LENGTH)) {
    fail(type, `messageId must be a non-empty string of at most ${MAX_MESSAGE_ID_LENGTH} characters`);
  }
  const messageId = (params.messageId as string | undefined) ?? stamp.newId();
  const message = {
    ...params,
    type,
    messageId,
    timestamp: normaliseTimestamp(type, params.timestamp, stamp.now),
    context: { library: LIBRARY, ...(params.context as JsonObject | undefined) },
  };
  let json: string;
  try {
    json = JSON.stringify(message);
  } catch (err) {
    return fail(type, `message is not serializable to JSON (${(err as Error).message})`);
  }
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new AnalyticsError(
      "message_too_large",
      `${type}: message is ${bytes} bytes of JSON, over the ${MAX_MESSAGE_BYTES}-byte (32 KB) limit`,
    );
  }
  return { messageId, type, json, bytes };
}
