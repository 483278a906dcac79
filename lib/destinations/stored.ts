import "server-only";
import { type FieldLists, storedFieldLists } from "../routing/field-lists";
import { type BatchSettings, storedBatch } from "../webhooks/batching";
import { METHODS, type Method, NUMBER_FORMS, type NumberForm } from "../webhooks/request-shape";
import type { StoredHeader } from "./headers";
import { MAX_HOLD_MINUTES_DEFAULT, ORDERINGS, type Ordering } from "./contract";

/**
 * The one home of a destination's stored settings (docs/architecture.md#one-plan): what its columns
 * hold, read the same way by the Management API (destinations.ts), the worker (lib/delivery/load.ts)
 * and the capture page's signature check. Each column written through the contract's schema reads
 * back as written; a value stored before a rule existed, or by hand, reads as its default here, in
 * one place, instead of three readers each deciding.
 */
export type StoredColumns = {
  method: string;
  mapping: unknown;
  numbers: string;
  mode: string;
  headers: unknown;
  filter: unknown;
  batch: unknown;
  ordering: string;
  maxHoldMinutes: number;
  rateLimitPerSecond: number | null;
  rateLimitConcurrency: number | null;
};

export type StoredSettings = {
  method: Method;
  /** null: the seed's body */
  mapping: Record<string, unknown> | null;
  numbers: NumberForm;
  mode: "any" | "every";
  headers: StoredHeader[];
  /** the filter's drop and allow lists, applied before a body is mapped and signed */
  fieldLists: FieldLists | null;
  /** null: one event per request */
  batch: BatchSettings | null;
  /** docs/webhooks.md#ordering */
  ordering: Ordering;
  /** docs/webhooks.md#hold-limit */
  maxHoldMinutes: number;
  rateLimit: { perSecond: number | null; concurrency: number | null };
};

export function storedSettings(c: StoredColumns): StoredSettings {
  return {
    method: METHODS.find((m) => m === c.method) ?? "POST",
    mapping:
      c.mapping !== null && typeof c.mapping === "object" && !Array.isArray(c.mapping) ? (c.mapping as Record<string, unknown>) : null,
    numbers: NUMBER_FORMS.find((n) => n === c.numbers) ?? "canonical",
    mode: c.mode === "every" ? "every" : "any",
    headers: Array.isArray(c.headers) ? (c.headers as StoredHeader[]) : [],
    fieldLists: storedFieldLists(c.filter),
    batch: storedBatch(c.batch),
    ordering: ORDERINGS.find((o) => o === c.ordering) ?? "none",
    maxHoldMinutes: Number.isInteger(c.maxHoldMinutes) && c.maxHoldMinutes > 0 ? c.maxHoldMinutes : MAX_HOLD_MINUTES_DEFAULT,
    rateLimit: { perSecond: c.rateLimitPerSecond, concurrency: c.rateLimitConcurrency },
  };
}
