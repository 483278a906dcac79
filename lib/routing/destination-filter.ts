import "server-only";
import type { DestinationFilter } from "../destinations/contract";
import { conditionHolds } from "./event-condition";
import { sampledIn } from "./sampling";

/**
 * Destination filters (docs/routing.md#destination-filters): which calls a destination receives, by
 * call type, for track calls by event name, then by conditions on what is inside the call
 * (docs/routing.md#conditions), then by sampling (docs/routing.md#sampling). Pure: routing at
 * ingest, the dashboard's preview and the test-send all ask this one function.
 */

/** What the filter reads of a call: its type and event, and for conditions and sampling its stored payload and messageId. */
export type FilteredCall = { type: string; event?: string | null; messageId?: string | null; payload?: Record<string, unknown> | null };

export type FilterVerdict = { passes: true } | { passes: false; reason: string };

const PASSES: FilterVerdict = { passes: true };

/** Whether a call of `type` (with `event`, for a track call) passes; null or absent filter passes all. */
export function filterVerdict(filter: DestinationFilter | null | undefined, message: FilteredCall): FilterVerdict {
  // The column is only written through the contract's schema; a shape it did not write (a hand edit)
  // must not make ingest fail, so it filters nothing, as no filter would.
  if (!filter || !Array.isArray(filter.types) || !Array.isArray(filter.events?.names)) return PASSES;
  if (!(filter.types as readonly string[]).includes(message.type)) {
    return { passes: false, reason: `The filter does not include ${message.type} calls` };
  }
  const byName = eventNameVerdict(filter, message);
  if (!byName.passes) return byName;
  // Conditions read the stored call (docs/routing.md#conditions); a call without one (erased) meets none.
  if (filter.where && !conditionsHold(filter.where, message.payload ?? {})) {
    return { passes: false, reason: "The call does not meet the filter's conditions" };
  }
  const percent = typeof filter.samplePercent === "number" ? filter.samplePercent : 100;
  // Without a messageId (a test-send's verdict) there is no sample to be in or out of.
  if (percent < 100 && message.messageId != null && !sampledIn(message.messageId, percent)) {
    return { passes: false, reason: `The call is not among the ${percent} % the filter samples` };
  }
  return PASSES;
}

/** A stored condition the contract did not write (a hand edit) must not make ingest fail: it filters nothing. */
function conditionsHold(where: NonNullable<DestinationFilter["where"]>, payload: Record<string, unknown>): boolean {
  try {
    return conditionHolds(where, payload);
  } catch {
    return true;
  }
}

function eventNameVerdict(filter: DestinationFilter, message: FilteredCall): FilterVerdict {
  // Event names belong to track calls only; the other types pass on their type alone.
  if (message.type !== "track" || filter.events.mode === "all") return PASSES;
  // Names match exactly, case included, as Segment's event names do.
  const listed = message.event != null && filter.events.names.includes(message.event);
  if (filter.events.mode === "include" && !listed) {
    return { passes: false, reason: `The filter receives only the track events it names, and not "${message.event ?? ""}"` };
  }
  if (filter.events.mode === "exclude" && listed) {
    return { passes: false, reason: `The filter excludes track events named "${message.event}"` };
  }
  return PASSES;
}

export const filterAllows = (filter: DestinationFilter | null | undefined, message: FilteredCall): boolean =>
  filterVerdict(filter, message).passes;
