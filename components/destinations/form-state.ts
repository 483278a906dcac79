import { noOrdering, type OrderingState, orderingFromDestination, orderingToInput } from "./ordering-section";
import { fieldErrorsFromIssues, type FieldErrors } from "@/lib/api/field-errors";
import {
  destinationDuplicatesSchema,
  destinationInputSchema,
  destinationPatchSchema,
  type DestinationDto,
  type DestinationFilter,
  type WriteOnlyValue,
} from "@/lib/destinations/contract";
import { FILTER_TYPES } from "@/lib/destinations/filter-types";
import type { Method, NumberForm } from "@/lib/webhooks/request-shape";
import { noRateLimit, rateLimitFromDestination, rateLimitToInput, type RateLimitState } from "./rate-limit-section";
import { authFromDestination, authSecretMissing, authToInput, noAuth, type AuthState } from "./auth-section";
import { noTls, tlsFromDestination, tlsKeyMissing, tlsToInput, type TlsState } from "./tls-section";

/**
 * A write-only value in the form (docs/signing.md#secrets). Editing, a stored value is `kept`: the
 * form shows its hint and leaves it out of the PATCH, so it stays as it is. Replace types a new one;
 * Remove sends "" (removed on save).
 */
export type WriteOnlyState = { action: "keep" | "replace" | "remove"; value: string; stored: WriteOnlyValue | null };

export type HeaderRow = { name: string } & WriteOnlyState;

/**
 * The filter as the form edits it: event names and drop/allow fields typed one per line, the
 * conditions as JSON text (docs/routing.md#conditions; blank: none), the sample as a percentage.
 */
export type FilterState = {
  types: string[];
  eventMode: DestinationFilter["events"]["mode"];
  eventNames: string;
  where: string;
  samplePercent: string;
  drop: string;
  allow: string;
};

const allCalls = (): FilterState => ({
  types: [...FILTER_TYPES],
  eventMode: "all",
  eventNames: "",
  where: "",
  samplePercent: "100",
  drop: "",
  allow: "",
});

/** Conditions typed as JSON; text that is not JSON is reported by validateForm, and sent as is (the API refuses it). */
export function parseWhere(text: string): { value: unknown; error: string | null } {
  if (text.trim() === "") return { value: null, error: null };
  try {
    return { value: JSON.parse(text), error: null };
  } catch (err) {
    return { value: text, error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Lines typed → names; blank lines are not names. */
const namesOf = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");

/** The API's filter: null when it lets every call through (docs/routing.md#destination-filters). */
export function filterToInput(f: FilterState): unknown {
  const where = parseWhere(f.where).value;
  const samplePercent = f.samplePercent.trim() === "" ? Number.NaN : Number(f.samplePercent);
  const drop = namesOf(f.drop);
  const allow = namesOf(f.allow);
  const everything = f.types.length === FILTER_TYPES.length && f.eventMode === "all";
  if (everything && where === null && samplePercent === 100 && drop.length === 0 && allow.length === 0) return null;
  return {
    types: f.types,
    events: { mode: f.eventMode, names: f.eventMode === "all" ? [] : namesOf(f.eventNames) },
    where,
    samplePercent,
    drop,
    allow,
  };
}

/** What the destination form edits: strings where the user types, turned into API input on submit. */
export type FormState = {
  name: string;
  urls: string[];
  headers: HeaderRow[];
  sharedSecret: WriteOnlyState;
  standardWebhooks: boolean;
  standardSecret: WriteOnlyState;
  enabled: boolean;
  mode: "any" | "every";
  retryWindowMinutes: string;
  sourceIds: string[];
  filter: FilterState;
  /** docs/request-shape.md */
  method: Method;
  /** The mapping as typed (JSON text); "" sends the default body. */
  mappingText: string;
  /** docs/webhooks.md#numbers */
  numbers: NumberForm;
  /** docs/request-shape.md#batching: off sends one event per request; the numbers as typed */
  batchOn: boolean;
  batchSize: string;
  batchMaxWaitMs: string;
  /** docs/webhooks.md#rate-limits */
  rateLimit: RateLimitState;
  /** docs/webhooks.md#ordering */
  ordering: OrderingState;
  /** docs/endpoint-auth.md */
  auth: AuthState;
  /** docs/endpoint-auth.md#mutual-tls */
  tls: TlsState;
};

/** What the Batching section offers when first turned on. */
export const BATCH_DEFAULTS = { size: "100", maxWaitMs: "2000" } as const;

const typed = (value = ""): WriteOnlyState => ({ action: "replace", value, stored: null });
const storedAs = (hint: WriteOnlyValue): WriteOnlyState => (hint.set ? { action: "keep", value: "", stored: hint } : typed());

export const emptyForm = (): FormState => ({
  name: "",
  urls: [""],
  headers: [],
  sharedSecret: typed(),
  standardWebhooks: false,
  standardSecret: typed(),
  enabled: true,
  mode: "any",
  retryWindowMinutes: "240",
  sourceIds: [],
  filter: allCalls(),
  method: "POST",
  mappingText: "",
  numbers: "canonical",
  batchOn: false,
  batchSize: BATCH_DEFAULTS.size,
  batchMaxWaitMs: BATCH_DEFAULTS.maxWaitMs,
  rateLimit: noRateLimit(),
  ordering: noOrdering(),
  auth: noAuth(),
  tls: noTls(),
});

export const newHeaderRow = (): HeaderRow => ({ name: "", ...typed() });

export const formFromDestination = (d: DestinationDto): FormState => ({
  name: d.name,
  urls: d.urls.length ? [...d.urls] : [""],
  headers: d.headers.map((h) => ({ name: h.name, ...storedAs(h.value) })),
  sharedSecret: storedAs(d.sharedSecret),
  standardWebhooks: d.standardWebhooks,
  standardSecret: storedAs(d.standardSecret),
  enabled: d.enabled,
  mode: d.mode,
  retryWindowMinutes: String(d.retryWindowMinutes),
  sourceIds: [...d.sourceIds],
  filter: {
    types: [...d.filter.types],
    eventMode: d.filter.events.mode,
    eventNames: d.filter.events.names.join("\n"),
    where: d.filter.where ? JSON.stringify(d.filter.where, null, 2) : "",
    samplePercent: String(d.filter.samplePercent),
    drop: d.filter.drop.join("\n"),
    allow: d.filter.allow.join("\n"),
  },
  method: d.method,
  mappingText: d.mapping === null ? "" : JSON.stringify(d.mapping, null, 2),
  numbers: d.numbers,
  batchOn: d.batch !== null,
  batchSize: d.batch ? String(d.batch.size) : BATCH_DEFAULTS.size,
  batchMaxWaitMs: d.batch ? String(d.batch.maxWaitMs) : BATCH_DEFAULTS.maxWaitMs,
  rateLimit: rateLimitFromDestination(d),
  ordering: orderingFromDestination(d),
  auth: authFromDestination(d),
  tls: tlsFromDestination(d),
});

/**
 * The mapping text as the API takes it: "" is none (null); JSON that does not parse is passed on
 * as the text itself, which the schema refuses (validateForm says why instead).
 */
export function mappingFromText(text: string): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Why the mapping text is not JSON, or null when it is (or is empty). */
export function mappingJsonError(text: string): string | null {
  if (text.trim() === "") return null;
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    return `Not valid JSON: ${(e as Error).message}`;
  }
}

/** A kept value is left out (undefined: unchanged); a removed one is sent as "" (removed); a typed one as typed. */
const secretInput = (s: WriteOnlyState) => (s.action === "keep" ? undefined : s.action === "remove" ? "" : s.value);

/** The API input, unvalidated: the shared zod schema decides (a blank number stays NaN and is refused). */
export function formToInput(f: FormState) {
  return {
    name: f.name,
    urls: f.urls,
    // A removed header row is gone from the list; a kept one goes without its value (the server keeps it).
    headers: f.headers.map((h) => (h.action === "keep" ? { name: h.name } : { name: h.name, value: h.value })),
    sharedSecret: secretInput(f.sharedSecret),
    standardWebhooks: f.standardWebhooks,
    // A secret left in the field while the option is off is not sent.
    standardSecret: f.standardWebhooks ? secretInput(f.standardSecret) : f.standardSecret.action === "keep" ? undefined : "",
    enabled: f.enabled,
    mode: f.mode,
    retryWindowMinutes: f.retryWindowMinutes.trim() === "" ? Number.NaN : Number(f.retryWindowMinutes),
    sourceIds: f.sourceIds,
    filter: filterToInput(f.filter),
    method: f.method,
    mapping: mappingFromText(f.mappingText),
    numbers: f.numbers,
    batch: f.batchOn ? { size: numberOf(f.batchSize), maxWaitMs: numberOf(f.batchMaxWaitMs) } : null,
    rateLimit: rateLimitToInput(f.rateLimit),
    ...orderingToInput(f.ordering),
    auth: authToInput(f.auth),
    tls: tlsToInput(f.tls),
  };
}

/** A number as typed; blank is NaN, which the schema refuses with its own message. */
const numberOf = (s: string) => (s.trim() === "" ? Number.NaN : Number(s));

/**
 * Every error of the form at once, keyed as the API keys them (`urls.1`, `headers.0.name`): the
 * shared schema's field errors (the PATCH schema when editing: stored secrets may stay as they are)
 * merged with the duplicate checks, which zod would skip while any other field (say a retry window
 * of "abc") is invalid.
 */
export function validateForm(f: FormState, { editing = false } = {}): { valid: boolean; errors: FieldErrors } {
  const raw = formToInput(f);
  const parsed = (editing ? destinationPatchSchema : destinationInputSchema).safeParse(raw);
  const whereError = parseWhere(f.filter.where).error;
  const noClientSecret = authSecretMissing(f.auth);
  const noClientKey = tlsKeyMissing(f.tls);
  if (parsed.success && !whereError && !noClientSecret && !noClientKey) return { valid: true, errors: {} };
  const errors = parsed.success ? {} : fieldErrorsFromIssues(parsed.error.issues);
  if (noClientSecret) errors["auth.clientSecret"] = ["Enter the client secret"];
  if (noClientKey) errors["tls.clientKey"] = ["Paste the client key"];
  const jsonError = mappingJsonError(f.mappingText);
  if (jsonError) errors.mapping = [jsonError];
  // A JSON syntax error says where the text breaks, rather than that the value has the wrong shape.
  if (whereError) errors["filter.where"] = [whereError];
  const duplicates = destinationDuplicatesSchema.safeParse(raw);
  if (!duplicates.success) {
    for (const [key, messages] of Object.entries(fieldErrorsFromIssues(duplicates.error.issues))) {
      errors[key] = [...new Set([...(errors[key] ?? []), ...messages])];
    }
  }
  return { valid: false, errors };
}

export function generateSharedSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function generateStandardSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** A save's warnings (`urls.1` → messages), shaped like field errors so each shows under its field. */
export function warningsByField(warnings: { field: string; message: string }[]): FieldErrors {
  const out: FieldErrors = {};
  for (const w of warnings) out[w.field] = [...(out[w.field] ?? []), w.message];
  return out;
}
