/**
 * A destination's request shape (docs/request-shape.md): its method, its body mapping and its URL
 * templates, applied to one message. Without a mapping the body is the seed's (payload.ts), byte
 * for byte; delete notices always keep theirs, so a receiver recognises them whatever the mapping.
 * Pure.
 */
import { canonicalJson, stringifyExact } from "../platform/exact-json";
import { applyFieldLists, type FieldLists, listsFields } from "../routing/field-lists";
import { compileMapping, MappingError } from "./mapping";
import { buildPayload, serializePayload, type StoredMessage } from "./payload";
import { seedBodyFromText } from "./payload-text";
import { hasTemplate, renderUrl } from "./url-template";

export const METHODS = ["POST", "PUT", "PATCH"] as const;
export type Method = (typeof METHODS)[number];

/**
 * How a body writes numbers (docs/webhooks.md#numbers): "canonical" (the default) as JavaScript
 * writes the parsed value, so every body equals JSON.stringify(JSON.parse(body)) and the seed's
 * signature recipe verifies it; "exact": integers beyond 2^53 with the digits the client sent.
 */
export const NUMBER_FORMS = ["canonical", "exact"] as const;
export type NumberForm = (typeof NUMBER_FORMS)[number];

export type RequestShape = {
  method: Method;
  mapping: ((event: Record<string, unknown>) => unknown) | null;
  templated: boolean;
  numbers: NumberForm;
};

export const DEFAULT_SHAPE: RequestShape = { method: "POST", mapping: null, templated: false, numbers: "canonical" };

/** A destination's stored method, mapping and number form, prepared once per destination and batch (the mapping compiled). */
export function prepareShape(stored: {
  method?: string | null;
  mapping?: unknown;
  urls?: string[];
  numbers?: string | null;
}): RequestShape {
  const method = METHODS.find((m) => m === stored.method) ?? "POST";
  const mapping = stored.mapping === null || stored.mapping === undefined ? null : compileMapping(stored.mapping);
  const templated = (stored.urls ?? []).some(hasTemplate);
  const numbers: NumberForm = stored.numbers === "exact" ? "exact" : "canonical";
  return method === "POST" && !mapping && !templated && numbers === "canonical" ? DEFAULT_SHAPE : { method, mapping, templated, numbers };
}

/**
 * The event as Segment's mappings see it (`$.properties`, `$.traits`, `$.context`, `$.userId`…):
 * the stored call in its own key order, with the fields Eventrail keeps in columns filled in when
 * the stored payload lacks them.
 */
export function segmentEvent(m: StoredMessage, numbers: NumberForm = "exact"): Record<string, unknown> {
  const e: Record<string, unknown> = { ...(eventPayload(m, numbers) ?? {}) };
  e.type ??= m.type;
  e.messageId ??= m.messageId;
  if (m.userId !== null) e.userId ??= m.userId;
  if (m.anonymousId !== null) e.anonymousId ??= m.anonymousId;
  e.timestamp ??= m.timestamp;
  e.receivedAt ??= m.receivedAt;
  if (m.sentAt !== null) e.sentAt ??= m.sentAt;
  return e;
}

/**
 * The stored call as a mapping reads it. Canonical: as JSON.parse gives it, as Segment's mapping kit
 * sees it (an integer beyond 2^53 is the double JavaScript reads); exact: with ExactInteger for such
 * an integer, which a mapping copies as a value and stringifyExact writes with its digits.
 */
function eventPayload(m: StoredMessage, numbers: NumberForm): Record<string, unknown> | null {
  if (numbers === "canonical" && m.payloadText) return JSON.parse(m.payloadText) as Record<string, unknown>;
  return m.payload;
}

/** Each URL of a round: where its request goes, or why it is not sent. */
export type Target = { sendTo: string } | { error: string };

/** The body and each URL's target for one message, or the reason none can be sent. */
export type Shaped = { body: string; targets: Target[] };

/**
 * `fieldLists`: the destination's drop and allow lists, applied to what the mapping reads and to the
 * seed's body alike, before anything is signed (filter → drop → mapping → sign: docs/routing.md#order).
 */
export function shapeRequest(shape: RequestShape, message: StoredMessage, urls: string[], fieldLists?: FieldLists | null): Shaped {
  const seedBody = () => {
    // Without field lists, from the stored text when the loader kept it (payload-text.ts): the same bytes, no parse.
    const fromText = !listsFields(fieldLists) && message.payloadText ? seedBodyFromText(message, message.payloadText) : null;
    const body = fromText ?? serializePayload(applyFieldLists(buildPayload(message), fieldLists));
    // The seed's body keeps the stored digits; the default form writes them as JavaScript does (docs/webhooks.md#numbers).
    return shape.numbers === "canonical" ? canonicalJson(body) : body;
  };
  if (shape === DEFAULT_SHAPE) return { body: seedBody(), targets: urls.map((u) => ({ sendTo: u })) };
  const event = shape.mapping || shape.templated ? applyFieldLists(segmentEvent(message, shape.numbers), fieldLists) : null;
  let body: string;
  if (shape.mapping && message.type !== "delete") {
    try {
      const mapped = shape.mapping(event!);
      if (mapped === undefined) throw new MappingError("it gave no body (its top-level directive found nothing)");
      // A mapped body obeys the same number form as the seed's (docs/webhooks.md#numbers).
      body = shape.numbers === "canonical" ? canonicalJson(stringifyExact(mapped)) : stringifyExact(mapped);
    } catch (err) {
      if (!(err instanceof MappingError)) throw err;
      const error = `mapping could not be applied to this event: ${err.message}; not sent`;
      return { body: "", targets: urls.map(() => ({ error })) };
    }
  } else body = seedBody();
  const targets = urls.map((u): Target => {
    if (!shape.templated || !hasTemplate(u)) return { sendTo: u };
    const r = renderUrl(u, event);
    return "url" in r ? { sendTo: r.url } : r;
  });
  return { body, targets };
}
