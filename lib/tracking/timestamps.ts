import "server-only";
/**
 * ISO 8601 as real analytics clients write it: `Z`, `±hh:mm`, `±hhmm` (analytics-go writes
 * `2026-11-21T15:05:50+0000`), `±hh`, with or without fractional seconds (Go sends nanoseconds),
 * a space instead of `T`, or a bare date. A time without a zone is read as UTC, as Segment does.
 * `Date.parse` is not used: it accepts non-ISO forms and rejects `+0000` on some engines.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (y: number, m: number) => (m === 2 && isLeapYear(y) ? 29 : MONTH_DAYS[m - 1]);

/*
 * Calendar arithmetic in plain integers (proleptic Gregorian, H. Hinnant's days_from_civil and
 * civil_from_days) instead of Date objects: ingest converts two or three timestamps per message,
 * and a Date per conversion costs more than the rest of normalising a track call
 * (docs/decisions/0003-ingest-throughput.md).
 */
const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to the given date (month 1–12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

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
  // Years 0–99 stay literal (Date.UTC would read them as 1900–1999); second 60 folds into the next minute.
  const utc = daysFromCivil(year, month, day) * DAY_MS + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis;
  return utc - offsetMinutes * 60_000;
}

/**
 * The instants Eventrail stores: years 0001–9999 in UTC. It is what `toIso` writes as a 4-digit
 * year (outside it, `+010000-…` or `-000001-…`, which Postgres' timestamptz input refuses) and what
 * every receiver's ISO 8601 parser reads. A message outside it is rejected alone (normalise.ts).
 */
export const MIN_TIMESTAMP_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z (Date.UTC maps year 1 to 1901)
export const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const inStorableRange = (ms: number): boolean => ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS;

const DIGITS2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const DIGITS3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));

/**
 * UTC with milliseconds, the one form Eventrail stores and sends: exactly what
 * `new Date(ms).toISOString()` writes (timestamps.test.ts compares them), which it still does
 * outside the storable years and for a fractional or invalid `ms`.
 */
export function toIso(ms: number): string {
  if (!Number.isInteger(ms) || !inStorableRange(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let t = ms - days * DAY_MS;
  const hour = Math.floor(t / 3_600_000);
  t -= hour * 3_600_000;
  const minute = Math.floor(t / 60_000);
  t -= minute * 60_000;
  const second = Math.floor(t / 1000);
  const millis = t - second * 1000;
  // civil_from_days
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${DIGITS2[Math.floor(year / 100)]}${DIGITS2[year % 100]}-${DIGITS2[month]}-${DIGITS2[day]}T${DIGITS2[hour]}:${DIGITS2[minute]}:${DIGITS2[second]}.${DIGITS3[millis]}Z`;
}

/**
 * The event's time on the server's clock: the client's clock skew (sentAt − its timestamp)
 * taken off the arrival time, else the client's timestamp, else the arrival time.
 */
export function correctedTimestamp(opts: { receivedAt: number; sentAt: number | null; original: number | null }): number {
  if (opts.original === null) return opts.receivedAt;
  if (opts.sentAt === null) return opts.original;
  return opts.receivedAt - (opts.sentAt - opts.original);
}
