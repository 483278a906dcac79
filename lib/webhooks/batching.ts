/**
 * Opt-in batching (docs/request-shape.md#batching): the setting, its limits, and how a batch's body
 * is assembled from its events' own bodies. Pure; browser-safe (the form and the contract use it).
 */
import { z } from "zod";
import { hasTemplate } from "./url-template";

export const BATCH_SIZE = { min: 1, max: 1000 } as const;
export const BATCH_WAIT_MS = { min: 100, max: 30_000 } as const;
/**
 * A batch body's ceiling in UTF-8 bytes, the Tracking API's own request limit (docs/tracking-api.md):
 * a batch closes early rather than exceed it. An event whose own body is larger goes in a batch of
 * its own (docs/request-shape.md#batch-size-limit).
 */
export const BATCH_BODY_LIMIT = 500 * 1024;

export const batchSettingsSchema = z.object(
  {
    size: z
      .number("Enter a number of events")
      .int("A whole number of events")
      .min(BATCH_SIZE.min, `At least ${BATCH_SIZE.min} event`)
      .max(BATCH_SIZE.max, `At most ${BATCH_SIZE.max} events`),
    maxWaitMs: z
      .number("Enter a number of milliseconds")
      .int("Whole milliseconds")
      .min(BATCH_WAIT_MS.min, `At least ${BATCH_WAIT_MS.min} ms`)
      .max(BATCH_WAIT_MS.max, `At most ${BATCH_WAIT_MS.max} ms (30 s)`),
  },
  { error: "Batching is {size, maxWaitMs}, or null to send one event per request" },
);
export type BatchSettings = z.infer<typeof batchSettingsSchema>;

/** The stored column read back: a value that no longer parses sends one event per request. */
export function storedBatch(raw: unknown): BatchSettings | null {
  if (raw === null || raw === undefined) return null;
  const parsed = batchSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** URL templates render per event; a batch holds many events, so the two do not go together. */
export function batchProblem(urls: readonly string[] | undefined, batch: BatchSettings | null | undefined): string | null {
  if (!batch || !urls?.some(hasTemplate)) return null;
  return "Batching sends many events in one request, so its URLs cannot hold {{…}} templates: remove them or turn batching off";
}

/** The UTF-8 length of a string, without encoding it. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A batch's body: the JSON array of its events' bodies, in the order they joined. */
export const batchBody = (parts: readonly string[]): string => `[${parts.join(",")}]`;

/** The body's length once `part` is added to a body of `bytes` holding `events` events. */
export const bytesWith = (bytes: number, events: number, part: string): number => bytes + utf8Length(part) + (events > 0 ? 1 : 0);

/**
 * Cuts a destination's joining deliveries into the whole batches they fill (`size` events, or fewer
 * when the next would take the body past BATCH_BODY_LIMIT; an event over it alone is a batch of
 * one) and the rest, fewer than a batch, which join the open batch.
 */
export function carve<T extends { bytes: number }>(group: readonly T[], size: number): { full: T[][]; rest: T[] } {
  const full: T[][] = [];
  let current: T[] = [];
  let bytes = 2;
  for (const j of group) {
    if (current.length > 0 && (current.length >= size || bytes + 1 + j.bytes > BATCH_BODY_LIMIT)) {
      full.push(current);
      current = [];
      bytes = 2;
    }
    bytes += j.bytes + (current.length > 0 ? 1 : 0);
    current.push(j);
  }
  if (current.length >= size || bytes >= BATCH_BODY_LIMIT) return { full: [...full, current], rest: [] };
  return { full, rest: current };
}
