import "server-only";
/**
 * ISO 8601 as real analytics clients write it: `Z`, `±hh:mm`, `±hhmm` (analytics-go writes
 * `2026-11-21T15:05:50+0000`), `±hh`, with or without fractional seconds (Go sends nanoseconds),
 * a space instead of `T`, or a bare date. A time without a zone is read as UTC, as Segment does.
 * `Date.parse` is not used: it accepts non-ISO forms and rejects `+0000` on some engines.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const daysInMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Epoch milliseconds of an ISO 8601 string, or null when it is not a valid date-time. */
export function parseIsoTimestamp(input: string): number | null {
  const m = ISO.exec(input.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // 60 is a leap second; Postgres and JS both fold it into the next minute.
  if (hour > 23 || minute > 59 || second > 60) return null;
  let offsetMinutes = 0;
  if (m[9]) {
    const oh = Number(m[10]);
    const om = Number(m[11] ?? 0);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear keeps them literal.
  const d = new Date(utc);
  if (year < 100) d.setUTCFullYear(year);
  return d.getTime() - offsetMinutes * 60_000;
}

/**
 * The instants Eventrail stores: years 0001–9999 in UTC. It is what `toIso` writes as a 4-digit
 * year (outside it, `+010000-…` or `-000001-…`, which Postgres' timestamptz input refuses) and what
 * every receiver's ISO 8601 parser reads. A message outside it is rejected alone (normalise.ts).
 */
export const MIN_TIMESTAMP_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z (Date.UTC maps year 1 to 1901)
export const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const inStorableRange = (ms: number): boolean => ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS;

/** UTC with milliseconds, the one form Eventrail stores and sends. */
export const toIso = (ms: number): string => new Date(ms).toISOString();

/**
 * The event's time on the server's clock: the client's clock skew (sentAt − its timestamp)
 * taken off the arrival time, else the client's timestamp, else the arrival time.
 */
export function correctedTimestamp(opts: { receivedAt: number; sentAt: number | null; original: number | null }): number {
  if (opts.original === null) return opts.receivedAt;
  if (opts.sentAt === null) return opts.original;
  return opts.receivedAt - (opts.sentAt - opts.original);
}
