import { plural } from "@/components/ui/format";
import { fieldErrorsFromIssues, type FieldErrors } from "@/lib/api/field-errors";
import {
  destinationDuplicatesSchema,
  destinationInputSchema,
  destinationPatchSchema,
  FILTER_TYPES,
  type DestinationDto,
  type DestinationFilter,
  type WriteOnlyValue,
} from "@/lib/destinations/contract";
import type { Method } from "@/lib/webhooks/request-shape";

/**
 * A write-only value in the form (docs/webhooks.md#secrets). Editing, a stored value is `kept`: the
 * form shows its hint and leaves it out of the PATCH, so it stays as it is. Replace types a new one;
 * Remove sends "" (removed on save).
 */
export type WriteOnlyState = { action: "keep" | "replace" | "remove"; value: string; stored: WriteOnlyValue | null };

export type HeaderRow = { name: string } & WriteOnlyState;

/** The filter as the form edits it: event names typed one per line. */
export type FilterState = { types: string[]; eventMode: DestinationFilter["events"]["mode"]; eventNames: string };

const allCalls = (): FilterState => ({ types: [...FILTER_TYPES], eventMode: "all", eventNames: "" });

/** Lines typed → names; blank lines are not names. */
const namesOf = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");

/** The API's filter: null when it lets every call through (docs/routing.md#destination-filters). */
export function filterToInput(f: FilterState): unknown {
  if (f.types.length === FILTER_TYPES.length && f.eventMode === "all") return null;
  return { types: f.types, events: { mode: f.eventMode, names: f.eventMode === "all" ? [] : namesOf(f.eventNames) } };
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
};

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
  filter: { types: [...d.filter.types], eventMode: d.filter.events.mode, eventNames: d.filter.events.names.join("\n") },
  method: d.method,
  mappingText: d.mapping === null ? "" : JSON.stringify(d.mapping, null, 2),
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
  };
}

/**
 * Every error of the form at once, keyed as the API keys them (`urls.1`, `headers.0.name`): the
 * shared schema's field errors (the PATCH schema when editing: stored secrets may stay as they are)
 * merged with the duplicate checks, which zod would skip while any other field (say a retry window
 * of "abc") is invalid.
 */
export function validateForm(f: FormState, { editing = false } = {}): { valid: boolean; errors: FieldErrors } {
  const raw = formToInput(f);
  const parsed = (editing ? destinationPatchSchema : destinationInputSchema).safeParse(raw);
  if (parsed.success) return { valid: true, errors: {} };
  const errors = fieldErrorsFromIssues(parsed.error.issues);
  const jsonError = mappingJsonError(f.mappingText);
  if (jsonError) errors.mapping = [jsonError];
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

/** "set · ••••abcd", or "set" for a value too short to show any of it. */
export const describeStored = (hint: WriteOnlyValue | null): string => (hint?.last4 ? `set · ••••${hint.last4}` : "set");

/** "All calls", or "track and identify calls; track events except Heartbeat, Ping": a filter as people say it. */
export function describeFilter(f: DestinationFilter): string {
  const all = f.types.length === FILTER_TYPES.length;
  if (all && f.events.mode === "all") return "All calls";
  const types = all ? "All call types" : `${f.types.slice(0, -1).join(", ")}${f.types.length > 1 ? " and " : ""}${f.types.at(-1)} calls`;
  if (f.events.mode === "all") return types;
  const names = f.events.names.join(", ");
  return `${types}; track events ${f.events.mode === "include" ? "only" : "except"} ${names}`;
}

/** "1 hour", "4 hours", "1 day 6 hours": the retry window as people say it. */
export function describeMinutes(raw: string): string | null {
  const m = Number(raw);
  if (!Number.isInteger(m) || m <= 0) return null;
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  const part = (n: number, unit: string) => (n ? plural(n, unit) : "");
  return [part(d, "day"), part(h, "hour"), part(min, "minute")].filter(Boolean).join(" ");
}
