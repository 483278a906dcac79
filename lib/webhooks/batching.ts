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

/** A batch's body: the JSON array of its events' bodies, in the order they joined. */
export const batchBody = (parts: readonly string[]): string => `[${parts.join(",")}]`;

/** A batch as events are added to it: those added now, and its events and body length in all. */
export type Filled<T> = { members: T[]; events: number; bytes: number; full: boolean };

/**
 * Adds events, in order, to batches of at most `size` events whose body stays within
 * BATCH_BODY_LIMIT, continuing `open` (an open batch's events and body length) first when given.
 * A batch is full once it holds `size` events, or when the next event would take it past the limit
 * (it closes early rather than pass it; an event over the limit alone is a batch of one). The last
 * batch may not be full; the first may take none of the events, full already for the next one.
 */
export function fill<T extends { bytes: number }>(events: readonly T[], size: number, open = { events: 0, bytes: 2 }): Filled<T>[] {
  let current: Filled<T> = { members: [], events: open.events, bytes: open.bytes, full: false };
  const out = [current];
  for (const e of events) {
    if (current.events > 0 && (current.events >= size || current.bytes + 1 + e.bytes > BATCH_BODY_LIMIT)) {
      current.full = true;
      current = { members: [], events: 0, bytes: 2, full: false };
      out.push(current);
    }
    current.bytes += e.bytes + (current.events > 0 ? 1 : 0);
    current.events++;
    current.members.push(e);
  }
  if (current.events >= size || current.bytes >= BATCH_BODY_LIMIT) current.full = true;
  return out;
}

/**
 * Cuts a destination's joining deliveries into the whole batches they fill and the rest, fewer than
 * a batch, which join the open batch.
 */
export function carve<T extends { bytes: number }>(group: readonly T[], size: number): { full: Filled<T>[]; rest: T[] } {
  const batches = fill(group, size);
  const last = batches[batches.length - 1];
  return last.full ? { full: batches, rest: [] } : { full: batches.slice(0, -1), rest: last.members };
}
