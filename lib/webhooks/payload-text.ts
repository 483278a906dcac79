/**
 * The seed's body (payload.ts buildPayload, serialized) written from the stored payload's text
 * without parsing it: its top-level values are copied as they stand, the other fields written from
 * the message's columns. Parsing each payload and serializing the body again was a third of the
 * worker's CPU per event (docs/decisions/0103-seed-body-from-text.md).
 *
 * Byte for byte the body buildPayload gives, because a payload text written by JSON.stringify
 * (ingest's stringifyExact, a test-send's or a notice's JSON.stringify) is what parsing and
 * serializing it again writes: no whitespace, keys in V8's order, numbers and strings as stringify
 * writes them. A text written by Postgres' jsonb (an audience's identify, a message stored before
 * payloads were kept as sent) has a space after each colon: it is refused (null) and the caller
 * takes the parsing path. Pure, no Node import (payload.ts is in the browser bundle).
 */
import { CLOSE_BRACE, CLOSE_BRACKET, closingQuote, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from "../platform/json-text";
import type { StoredMessage } from "./payload";

/** A character of a number or of true, false, null: digits, letters (e, E and the words), `.`, `+`, `-`. */
const isLiteralChar = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 69 || c === 46 || c === 43 || c === 45;

/** Index just past the JSON value that starts at `at` (compact text); -1 when it is not one. */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) {
    const end = closingQuote(text, at);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = closingQuote(text, i);
        if (i < 0) return -1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next comma or the object's end. A literal starts with
  // a letter, a digit or a minus, never whitespace (which only a text not written by stringify has).
  if (!((c >= 48 && c <= 57) || c === 45 || (c >= 97 && c <= 122))) return -1;
  let i = at + 1;
  while (i < text.length && isLiteralChar(text.charCodeAt(i))) i++;
  return i;
}

/** The top-level values the seed's body reads, each as its text; undefined when the payload has none. */
export class SeedFields {
  properties: string | undefined = undefined;
  context: string | undefined = undefined;
  traits: string | undefined = undefined;
  event: string | undefined = undefined;
  name: string | undefined = undefined;
  category: string | undefined = undefined;
  groupId: string | undefined = undefined;
  previousId: string | undefined = undefined;
  userId: string | undefined = undefined;
  anonymousId: string | undefined = undefined;
}

/**
 * The top-level values of a JSON object text as JSON.stringify writes it that the seed's body reads
 * (keys compared as written: these names hold no escapes). Null when the text is not such an object.
 */
export function seedFields(text: string): SeedFields | null {
  const fields = new SeedFields();
  if (text.charCodeAt(0) !== OPEN_BRACE) return null;
  if (text.length === 2 && text.charCodeAt(1) === CLOSE_BRACE) return fields;
  let i = 1;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return null;
    const keyEnd = closingQuote(text, i);
    if (keyEnd < 0 || text.charCodeAt(keyEnd + 1) !== COLON) return null;
    const start = keyEnd + 2;
    const end = valueEnd(text, start);
    if (end < 0) return null;
    // Only names of the seed's fields (2 to 11 characters) are looked at, and only their values copied.
    const keyLength = keyEnd - i - 1;
    if (keyLength >= 2 && keyLength <= 11) {
      const key = text.slice(i + 1, keyEnd);
      if (Object.hasOwn(fields, key)) fields[key as keyof SeedFields] = text.slice(start, end);
    }
    const next = text.charCodeAt(end);
    if (next === CLOSE_BRACE) return end === text.length - 1 ? fields : null;
    if (next !== COMMA) return null;
    i = end + 1;
  }
}

const isObjectText = (v: string | undefined): v is string => v !== undefined && v.charCodeAt(0) === OPEN_BRACE;
const isStringText = (v: string | undefined): v is string => v !== undefined && v.charCodeAt(0) === QUOTE;
const objectOr = (v: string | undefined) => (isObjectText(v) ? v : "{}");
const stringOrNull = (v: string | undefined) => (isStringText(v) ? v : "null");
const json = (s: string | null) => (s === null ? "null" : JSON.stringify(s));

/**
 * The seed's body for `m`, whose stored payload's text is `text`, as buildPayload and
 * serializePayload write it; null when the text is not one JSON.stringify wrote (see above) or the
 * type is not one the seed shapes, and the caller then parses it.
 */
export function seedBodyFromText(m: StoredMessage, text: string): string | null {
  if (m.type === "delete") return null;
  const p = seedFields(text);
  if (!p) return null;
  const userIdText = m.userId !== null ? json(m.userId) : stringOrNull(p.userId);
  let body = `{"version":1,"type":${json(m.type)}`;
  switch (m.type) {
    case "page": {
      body += `,"userId":${userIdText}`;
      const name = p.name;
      if (isStringText(name)) body += `,"name":${name}`;
      const category = p.category;
      if (isStringText(category)) body += `,"category":${category}`;
      body += `,"properties":${objectOr(p.properties)}`;
      break;
    }
    case "screen": {
      body += `,"userId":${userIdText},"name":${stringOrNull(p.name)}`;
      const category = p.category;
      if (isStringText(category)) body += `,"category":${category}`;
      const properties = p.properties;
      if (isObjectText(properties) && properties !== "{}") body += `,"properties":${properties}`;
      break;
    }
    case "identify":
      body += `,"userId":${userIdText},"traits":${objectOr(p.traits)}`;
      break;
    case "track":
      body += `,"userId":${userIdText},"event":${stringOrNull(p.event)},"properties":${objectOr(p.properties)}`;
      break;
    case "alias":
      body += `,"Previous ID":${stringOrNull(p.previousId)},"User ID":${userIdText}`;
      break;
    case "group":
      body += `,"groupId":${stringOrNull(p.groupId)},"userId":${userIdText},"traits":${objectOr(p.traits)}`;
      break;
    default:
      return null;
  }
  body += `,"timestamp":${json(m.timestamp)},"context":${objectOr(p.context)},"messageId":${json(m.messageId)}`;
  if (m.anonymousId) body += `,"anonymousId":${json(m.anonymousId)}`;
  else if (m.anonymousId === null) {
    const anonymousId = p.anonymousId;
    // buildPayload leaves out an empty one (`if (anonymousId)`)
    if (isStringText(anonymousId) && anonymousId !== '""') body += `,"anonymousId":${anonymousId}`;
  }
  body += `,"receivedAt":${json(m.receivedAt)}`;
  if (m.sentAt) body += `,"sentAt":${json(m.sentAt)}`;
  return `${body}}`;
}
