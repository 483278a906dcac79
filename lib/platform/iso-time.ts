import "server-only";

/**
 * `Date#toISOString`, remembered by time value: a delivery batch's rounds start in the same
 * millisecond and many end in the same one, and every round writes its start, end and first-attempt
 * times as ISO strings (lib/delivery/round.ts, attempt-row.ts). `toISOString` costs about 0.5 µs a
 * call, several per delivery; a hit costs a Map lookup (docs/decisions/0020-bench-deliver-method.md).
 * Bounded: the cache starts over past CAPACITY entries.
 */
const CAPACITY = 4096;
const cache = new Map<number, string>();

export function isoTime(d: Date): string {
  const t = d.getTime();
  let s = cache.get(t);
  if (s === undefined) {
    s = d.toISOString(); // throws RangeError for an invalid date, before anything is cached
    if (cache.size >= CAPACITY) cache.clear();
    cache.set(t, s);
  }
  return s;
}
