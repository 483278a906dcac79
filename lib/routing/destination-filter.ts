import "server-only";
import type { DestinationFilter } from "../destinations/contract";

/**
 * Destination filters (docs/routing.md#destination-filters): which calls a destination receives, by
 * call type and, for track calls, by event name. Pure: routing at ingest, the dashboard's preview
 * and the test-send all ask this one function.
 */

export type FilterVerdict = { passes: true } | { passes: false; reason: string };

const PASSES: FilterVerdict = { passes: true };

/** Whether a call of `type` (with `event`, for a track call) passes; null or absent filter passes all. */
export function filterVerdict(
  filter: DestinationFilter | null | undefined,
  message: { type: string; event?: string | null },
): FilterVerdict {
  // The column is only written through the contract's schema; a shape it did not write (a hand edit)
  // must not make ingest fail, so it filters nothing, as no filter would.
  if (!filter || !Array.isArray(filter.types) || !Array.isArray(filter.events?.names)) return PASSES;
  if (!(filter.types as readonly string[]).includes(message.type)) {
    return { passes: false, reason: `The filter does not include ${message.type} calls` };
  }
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

export const filterAllows = (filter: DestinationFilter | null | undefined, message: { type: string; event?: string | null }): boolean =>
  filterVerdict(filter, message).passes;
