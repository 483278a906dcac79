import { parse as losslessParse } from "lossless-json";

/**
 * JSON whose integers beyond 2^53 keep their digits from intake to the webhook body
 * (docs/tracking-api.md#fidelity): a customer's 64-bit order or user id must not come back rounded.
 * JSON.parse stays the parser for every text that cannot hold such a number (no run of 16 digits,
 * no 3-digit exponent), which is nearly all of them; the others are parsed again by lossless-json
 * (about 6× JSON.parse's time) only when JSON.parse's value shows such a number.
 * No Node import: lib/webhooks/payload.ts, which serializes with it, is also in the browser bundle.
 */

/** A number literal JSON.parse would change: kept as the client wrote it. */
export abstract class NumberLiteral {
  constructor(readonly literal: string) {}
  toString(): string {
    return this.literal;
  }
  /** Arithmetic and comparisons (a routing filter's `>`) see the nearest double. */
  valueOf(): number {
    return Number(this.literal);
  }
}

// Per process and never sent anywhere: a client cannot write a string that stringifyExact unquotes.
// getRandomValues, not randomUUID: the dashboard loads this module too, and a browser offers
// randomUUID only on https or localhost.
const TOKEN = `exact-${Array.from(globalThis.crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join("")}:`;
const MARKED = new RegExp(`"${TOKEN}(-?[0-9]+)"`, "g");
let marking = false;
let marked = false;

/** An integer literal beyond ±2^53 − 1. stringifyExact writes its digits; JSON.stringify, a string of them. */
export class ExactInteger extends NumberLiteral {
  toJSON(): string {
    if (!marking) return this.literal;
    marked = true;
    return TOKEN + this.literal;
  }
}

/** A literal past a double's range (`1e400`): refused by ingest, shown as text where it is kept. */
export class NonFiniteNumber extends NumberLiteral {
  toJSON(): string {
    return this.literal;
  }
}

const INTEGER = /^-?[0-9]+$/;
// A double holds every integer literal of at most 15 digits, and is finite for every exponent under
// 100. Two fixed-length patterns, which V8 scans for far faster than `[0-9]{16}|…` (a few µs per 60 KB).
const SIXTEEN_DIGITS = new RegExp("[0-9]".repeat(16));
const LONG_EXPONENT = /[0-9][eE][0-9+-][0-9][0-9]/;

export type ExactParse = { value: unknown; nonFinite: boolean };

/** Whether JSON.parse's value holds a number it may have changed: an integer beyond 2^53 or ±Infinity. */
function hasChangedNumber(v: unknown): boolean {
  if (typeof v === "number") return !Number.isSafeInteger(v) && (Number.isInteger(v) || !Number.isFinite(v));
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) return v.some(hasChangedNumber);
  for (const k in v) if (hasChangedNumber((v as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * JSON.parse, with ExactInteger and NonFiniteNumber in place of the numbers it would round or turn
 * into Infinity. JSON.parse checks the text first, so errors read as they always have; duplicate
 * keys keep the last value, as JSON.parse does.
 */
export function parseExactJson(text: string): ExactParse {
  const value: unknown = JSON.parse(text);
  if (!SIXTEEN_DIGITS.test(text) && !LONG_EXPONENT.test(text)) return { value, nonFinite: false };
  // The digits may be in a string (a card-like id, a µs timestamp): a walk is far cheaper than a second parse.
  if (!hasChangedNumber(value)) return { value, nonFinite: false };
  let literals = 0;
  let nonFinite = false;
  const exact = losslessParse(text, null, {
    parseNumber: (literal) => {
      const n = Number(literal);
      if (!Number.isFinite(n)) {
        literals++;
        nonFinite = true;
        return new NonFiniteNumber(literal);
      }
      if (Number.isSafeInteger(n) || !INTEGER.test(literal)) return n;
      literals++;
      return new ExactInteger(literal);
    },
    onDuplicateKey: ({ newValue }) => newValue,
  });
  return literals === 0 ? { value, nonFinite: false } : { value: exact, nonFinite };
}

/**
 * Whether a JSON text may hold a number JSON.parse changes (an integer beyond 2^53, an exponent past
 * a double's range): the two fixed-length patterns above, a few µs per 60 KB.
 */
export const mayHoldChangedNumber = (text: string): boolean => SIXTEEN_DIGITS.test(text) || LONG_EXPONENT.test(text);

/**
 * The text as JavaScript writes it back: `JSON.stringify(JSON.parse(text))`, which is the text
 * itself unless it holds a number JSON.parse rounds. A body sent in the default `numbers` form is
 * this (docs/webhooks.md#numbers): the seed's recipe, HMAC over JSON.stringify(JSON.parse(body)),
 * then verifies every request. Idempotent: a text it returns is returned unchanged.
 */
export function canonicalJson(text: string): string {
  return mayHoldChangedNumber(text) ? JSON.stringify(JSON.parse(text)) : text;
}

/** Where a JSON text holds integers that JavaScript rounds: each place with its digits and what is sent instead. */
export type RoundedNumber = { path: string; digits: string; sent: string };

/**
 * The integers beyond 2^53 in a JSON text whose digits JavaScript changes (`properties.orderId`
 * `9007199254740993` → `9007199254740992`), for the request log's mark on a stored message.
 */
export function roundedNumbers(text: string | null, max = 20): RoundedNumber[] {
  if (text === null || !mayHoldChangedNumber(text)) return [];
  const { value } = parseExactJson(text);
  const out: RoundedNumber[] = [];
  const walk = (v: unknown, path: string) => {
    if (out.length >= max) return;
    if (v instanceof ExactInteger) {
      const sent = String(Number(v.literal));
      if (sent !== v.literal) out.push({ path, digits: v.literal, sent });
      return;
    }
    if (typeof v !== "object" || v === null || v instanceof NumberLiteral) return;
    if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(value, "");
  return out;
}

/** JSON.stringify, writing each ExactInteger as the number it is. */
export function stringifyExact(value: unknown): string {
  marking = true;
  marked = false;
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    marking = false;
  }
  return marked ? json.replace(MARKED, "$1") : json;
}

/** Where in a parsed value the first NonFiniteNumber is (`properties.total`), or null. */
export function findNonFinite(value: unknown, path = ""): { path: string; literal: string } | null {
  if (value instanceof NonFiniteNumber) return { path, literal: value.literal };
  if (typeof value !== "object" || value === null || value instanceof NumberLiteral) return null;
  const entries = Array.isArray(value)
    ? value.map((v, i) => [`${path}[${i}]`, v] as const)
    : Object.entries(value).map(([k, v]) => [path ? `${path}.${k}` : k, v] as const);
  for (const [at, v] of entries) {
    const found = findNonFinite(v, at);
    if (found) return found;
  }
  return null;
}
