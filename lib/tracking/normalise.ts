import "server-only";
import { ExactInteger, NumberLiteral, findNonFinite, stringifyExact } from "../platform/exact-json";
import { scanSerializedJson } from "./json-scan";
import { MAX_ID_BYTES, MAX_JSON_DEPTH, MAX_MESSAGE_BYTES, MAX_MESSAGE_ID_CHARS, isMessageType, kb, type MessageType } from "./limits";
import { correctedTimestamp, inStorableRange, parseIsoTimestamp, toIso } from "./timestamps";

type Obj = Record<string, unknown>;

/** An accepted call, ready to store: the columns, and `payload` in Segment's shape. */
export type NormalisedMessage = {
  type: MessageType;
  messageId: string;
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  timestamp: string;
  originalTimestamp: string | null;
  sentAt: string | null;
  receivedAt: string;
  integrations: Obj;
  payload: Obj;
  /** `payload` serialized once: checked against the limits, then embedded as is in the insert. */
  payloadJson: string;
};

export type Rejection = { index: number; messageId: string | null; type: string | null; reason: string; raw: unknown };

/** What a batch (or a single call's body) gives every message in it. */
export type BatchDefaults = { context: Obj | null; integrations: Obj | null; sentAt: number | null; sentAtIso: string | null };

/** The arrival time, as epoch ms and formatted once per request. */
export type Arrival = { ms: number; iso: string };

export type NormaliseInput = {
  raw: unknown;
  index: number;
  /** Single-call endpoints (/v1/track …) decide the type; /v1/batch reads it from the message. */
  endpointType: MessageType | null;
  defaults: BatchDefaults;
  /** The message's bytes as the client sent it (body.ts); null when the body is within 32 KB. */
  sentBytes: number | null;
  receivedAt: Arrival;
  newMessageId: () => string;
  /** Some number in the body is past a double's range (body.ts): find it and reject its message. */
  nonFinite?: boolean;
  /** The request's client address: context.ip when the message carries none, as Segment does. */
  clientAddress?: string | null;
};

class Reject extends Error {}
const reject = (reason: string): never => {
  throw new Reject(reason);
};

export const isPlainObject = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof NumberLiteral);
const utf8Bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** A string id (numbers are accepted and kept as text, as Segment's libraries do); "" and null are absent. */
function idField(msg: Obj, key: string): string | null {
  const v = msg[key];
  if (v === undefined || v === null || v === "") return null;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (v instanceof ExactInteger) return v.literal;
  if (typeof v !== "string") return reject(`${key} must be a string, got ${describeValue(v)}`);
  if (utf8Bytes(v) > MAX_ID_BYTES) reject(`${key} is longer than ${MAX_ID_BYTES} bytes`);
  return v;
}

function stringField(msg: Obj, key: string, maxBytes?: number): string | null {
  const v = msg[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") return reject(`${key} must be a string, got ${describeValue(v)}`);
  if (maxBytes !== undefined && utf8Bytes(v) > maxBytes) reject(`${key} is longer than ${maxBytes} bytes`);
  return v;
}

function objectField(msg: Obj, key: string): Obj | null {
  const v = msg[key];
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) return reject(`${key} must be a JSON object, got ${describeValue(v)}`);
  return v;
}

function timestampField(msg: Obj, key: string): number | null {
  const v = msg[key];
  if (v === undefined || v === null || v === "") return null;
  if (typeof v !== "string") return reject(`${key} must be an ISO 8601 string, got ${describeValue(v)}`);
  const ms = parseIsoTimestamp(v);
  if (ms === null) reject(`${key} ${JSON.stringify(v.slice(0, 40))} is not a valid ISO 8601 date-time`);
  if (!inStorableRange(ms!)) reject(`${key} ${JSON.stringify(v.slice(0, 40))} is outside the years 0001–9999 (UTC)`);
  return ms;
}

export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (v instanceof NumberLiteral) return `number ${v.literal.slice(0, 40)}`;
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)?.slice(0, 40)}`;
}

/**
 * Serializes the normalised message once and checks what Postgres refuses (one bad message must
 * not fail its whole batch), and the 32 KB limit on the message as sent (`sentBytes`).
 */
function serialize(payload: Obj, sentBytes: number | null): string {
  let json: string;
  try {
    json = stringifyExact(payload);
  } catch {
    return reject(`message is nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  const sent = sentBytes ?? 0;
  if (sent > MAX_MESSAGE_BYTES) reject(`message is ${sent.toLocaleString("en-US")} bytes (${kb(sent)}); the limit is 32 KB per message`);
  const scan = scanSerializedJson(json, MAX_JSON_DEPTH);
  if (scan.depth > MAX_JSON_DEPTH) reject(`message is nested ${scan.depth} levels deep; the limit is ${MAX_JSON_DEPTH}`);
  if (scan.hasNul) reject("message contains a NUL character (\\u0000), which cannot be stored");
  if (scan.hasLoneSurrogate) reject("message contains an unpaired UTF-16 surrogate escape (e.g. \\ud800), which is not valid Unicode");
  return json;
}

const merge = (batch: Obj | null, own: Obj | null): Obj | null => (batch ? { ...batch, ...own } : own);

/** Segment sets context.ip from the request for calls that carry none (docs/tracking-api.md#contextip). */
function withClientIp(context: Obj, clientAddress: string | null | undefined): Obj {
  if (!clientAddress || (context.ip !== undefined && context.ip !== null && context.ip !== "")) return context;
  return { ...context, ip: clientAddress };
}

function build(input: NormaliseInput, msg: Obj): NormalisedMessage {
  const nonFinite = input.nonFinite ? findNonFinite(msg) : null;
  if (nonFinite) reject(`${nonFinite.path} is ${nonFinite.literal.slice(0, 40)}, which is not a finite number`);
  const type = input.endpointType ?? msg.type;
  if (type === undefined || type === null) reject("type is missing");
  if (!isMessageType(type)) return reject(`unknown type ${JSON.stringify(type).slice(0, 40)}`);

  let messageId: string;
  const givenId = msg.messageId;
  if (givenId !== undefined && givenId !== null && givenId !== "") {
    if (typeof givenId !== "string" && typeof givenId !== "number" && !(givenId instanceof ExactInteger))
      reject(`messageId must be a string, got ${describeValue(givenId)}`);
    messageId = String(givenId);
    if (messageId.length > MAX_MESSAGE_ID_CHARS)
      reject(`messageId is ${messageId.length} characters; the limit is ${MAX_MESSAGE_ID_CHARS}`);
  } else {
    messageId = input.newMessageId();
  }

  const userId = idField(msg, "userId");
  const anonymousId = idField(msg, "anonymousId");
  if (userId === null && anonymousId === null) reject("userId or anonymousId is required");
  const event = type === "track" ? stringField(msg, "event", MAX_ID_BYTES) : null;
  if (type === "track" && !event) reject("track requires an event name");
  const groupId = idField(msg, "groupId");
  if (type === "group" && groupId === null) reject("group requires a groupId");
  const previousId = idField(msg, "previousId");
  if (type === "alias" && previousId === null) reject("alias requires a previousId");
  const name = stringField(msg, "name");
  const category = stringField(msg, "category");
  const properties = objectField(msg, "properties");
  const traits = objectField(msg, "traits");
  const context = merge(input.defaults.context, objectField(msg, "context"));
  const integrations = merge(input.defaults.integrations, objectField(msg, "integrations")) ?? {};

  const original = timestampField(msg, "timestamp") ?? timestampField(msg, "originalTimestamp");
  const ownSentAt = timestampField(msg, "sentAt");
  const sentAt = ownSentAt ?? input.defaults.sentAt;
  const correctedMs =
    sentAt === null && original === null ? null : correctedTimestamp({ receivedAt: input.receivedAt.ms, sentAt, original });
  // Each is in range alone, but a skew of thousands of years (sentAt − timestamp) can push the sum out.
  if (correctedMs !== null && !inStorableRange(correctedMs))
    reject("timestamp corrected for the client's clock skew (sentAt − timestamp) falls outside the years 0001–9999 (UTC)");
  const timestamp = correctedMs === null ? input.receivedAt.iso : toIso(correctedMs);
  const receivedAt = input.receivedAt.iso;
  const originalTimestamp = original === null ? null : toIso(original);
  const sentAtIso = sentAt === null ? null : ownSentAt !== null ? toIso(ownSentAt) : input.defaults.sentAtIso;

  // Segment's field names, in Segment's order; absent fields stay absent.
  const payload: Obj = { type, messageId };
  if (userId !== null) payload.userId = userId;
  if (anonymousId !== null) payload.anonymousId = anonymousId;
  if (event !== null) payload.event = event;
  if (name !== null) payload.name = name;
  if (category !== null) payload.category = category;
  if (groupId !== null) payload.groupId = groupId;
  if (previousId !== null) payload.previousId = previousId;
  if (properties !== null) payload.properties = properties;
  if (traits !== null) payload.traits = traits;
  payload.context = withClientIp(context ?? {}, input.clientAddress);
  payload.integrations = integrations;
  payload.timestamp = timestamp;
  if (originalTimestamp !== null) payload.originalTimestamp = originalTimestamp;
  if (sentAtIso !== null) payload.sentAt = sentAtIso;
  payload.receivedAt = receivedAt;

  const payloadJson = serialize(payload, input.sentBytes);
  return {
    type,
    messageId,
    userId,
    anonymousId,
    event,
    timestamp,
    originalTimestamp,
    sentAt: sentAtIso,
    receivedAt,
    integrations,
    payload,
    payloadJson,
  };
}

/** Validates and normalises one message; an invalid one comes back as a rejection with a readable reason. */
export function normaliseMessage(input: NormaliseInput): { ok: true; message: NormalisedMessage } | { ok: false; rejection: Rejection } {
  const raw = input.raw;
  const peek = isPlainObject(raw) ? raw : null;
  const messageId =
    peek && (typeof peek.messageId === "string" || typeof peek.messageId === "number" || peek.messageId instanceof NumberLiteral)
      ? String(peek.messageId).slice(0, 200)
      : null;
  const type = input.endpointType ?? (peek && typeof peek.type === "string" ? peek.type.slice(0, 40) : null);
  try {
    if (!peek) reject(`message must be a JSON object, got ${describeValue(raw)}`);
    return { ok: true, message: build(input, peek!) };
  } catch (err) {
    if (!(err instanceof Reject)) throw err;
    return { ok: false, rejection: { index: input.index, messageId, type, reason: err.message, raw } };
  }
}
