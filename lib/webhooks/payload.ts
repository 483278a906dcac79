/**
 * The body sent to a customer's endpoint, per type, as docs/webhooks.md#payloads says: the seed's fields
 * with the seed's names, then context (always an object: the seed says every call carries one),
 * messageId, anonymousId (when known), receivedAt and sentAt. Key order is fixed so that bodies
 * are reproducible byte for byte.
 */

import { NumberLiteral, stringifyExact } from "../platform/exact-json";

export const MESSAGE_TYPES = ["page", "screen", "identify", "track", "alias", "group", "delete"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** What the mapping needs from a stored message (a messages row). */
export type StoredMessage = {
  type: string;
  messageId: string;
  userId: string | null;
  anonymousId: string | null;
  /** ISO 8601, UTC with milliseconds */
  timestamp: string;
  receivedAt: string;
  sentAt: string | null;
  /** messages.payload: the normalised Segment-shaped call (null once erased) */
  payload: Record<string, unknown> | null;
  /** messages.payload's text as stored, when the loader has it: the seed's body is then written from it without parsing (payload-text.ts) */
  payloadText?: string | null;
};

type Obj = Record<string, unknown>;

// An integer beyond 2^53 is an object in memory (exact-json.ts), a number in JSON.
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof NumberLiteral);
const objectOr = (v: unknown, fallback: Obj): Obj => (isObject(v) ? v : fallback);
const nonEmpty = (v: unknown): v is Obj => isObject(v) && Object.keys(v).length > 0;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function buildPayload(m: StoredMessage): Obj {
  const p = m.payload ?? {};
  const userId = m.userId ?? str(p.userId) ?? null;
  // The seed's delete shape, and its messageId: two sources' notices for one user differ by it.
  if (m.type === "delete") return { type: "delete", userId, timestamp: m.timestamp, messageId: m.messageId };

  const body: Obj = { version: 1, type: m.type };
  switch (m.type) {
    case "page":
      body.userId = userId;
      if (str(p.name) !== undefined) body.name = p.name;
      if (str(p.category) !== undefined) body.category = p.category;
      body.properties = objectOr(p.properties, {});
      break;
    case "screen":
      body.userId = userId;
      body.name = str(p.name) ?? null;
      if (str(p.category) !== undefined) body.category = p.category;
      if (nonEmpty(p.properties)) body.properties = p.properties;
      break;
    case "identify":
      body.userId = userId;
      body.traits = objectOr(p.traits, {});
      break;
    case "track":
      body.userId = userId;
      body.event = str(p.event) ?? null;
      body.properties = objectOr(p.properties, {});
      break;
    case "alias":
      body["Previous ID"] = str(p.previousId) ?? null;
      body["User ID"] = userId;
      break;
    case "group":
      body.groupId = str(p.groupId) ?? null;
      body.userId = userId;
      body.traits = objectOr(p.traits, {});
      break;
    default:
      // Unknown types never pass ingest; send what is known rather than dropping the message.
      body.userId = userId;
  }
  body.timestamp = m.timestamp;
  // Every type but delete: the call's context, or {} (docs/webhooks.md#payloads).
  body.context = objectOr(p.context, {});
  body.messageId = m.messageId;
  const anonymousId = m.anonymousId ?? str(p.anonymousId);
  if (anonymousId) body.anonymousId = anonymousId;
  body.receivedAt = m.receivedAt;
  if (m.sentAt) body.sentAt = m.sentAt;
  return body;
}

/** The exact bytes sent (and signed); integers beyond 2^53 as the client sent them (lib/platform/exact-json.ts). */
export const serializePayload = (payload: Obj): string => stringifyExact(payload);
