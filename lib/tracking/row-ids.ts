import "server-only";
import crypto from "node:crypto";

/**
 * The one row-id scheme for messages and deliveries, whoever writes them (ingest, test-sends,
 * deletion notices, audience syncs): time-ordered ids (UUIDv7, RFC 9562;
 * docs/architecture.md#row-ids). newRowId makes them in Node; rowIdSql, in a statement that
 * makes its rows in SQL. A random UUID lands on a random leaf page of the primary key and
 * of every foreign key that points at it, so once the indexes outgrow memory each insert reads and
 * dirties a page of its own; a time-ordered one always lands on the rightmost leaf, so the cost of
 * an insert stays flat however many rows are stored (bench:growth).
 *
 * Layout: 48 bits of Unix milliseconds, version 7, then 12 bits of a per-process sequence (so ids
 * made in the same millisecond by this process still sort in the order they were made: RFC 9562
 * §6.2 method 1), the variant, and 62 random bits.
 */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const POOL_IDS = 512;
const random = Buffer.allocUnsafe(8 * POOL_IDS);
let randomAt = random.length;

let lastMs = 0;
let sequence = 0;

/** A new UUIDv7, in the canonical text form Postgres' uuid type reads. `now` is for tests. */
export function newRowId(now: number = Date.now()): string {
  let ms = now;
  if (ms <= lastMs) {
    // Same millisecond (or the clock stepped back): keep the order with the sequence; when it
    // overflows, borrow the next millisecond rather than lose the order.
    ms = lastMs;
    sequence++;
    if (sequence > 0xfff) {
      ms = ++lastMs;
      sequence = 0;
    }
  } else {
    sequence = 0;
  }
  lastMs = ms;
  if (randomAt === random.length) {
    crypto.randomFillSync(random);
    randomAt = 0;
  }
  const r = randomAt;
  randomAt += 8;
  const hi = Math.floor(ms / 0x10000); // the top 32 of the 48 time bits
  const lo = ms % 0x10000;
  return (
    HEX[(hi >>> 24) & 0xff] +
    HEX[(hi >>> 16) & 0xff] +
    HEX[(hi >>> 8) & 0xff] +
    HEX[hi & 0xff] +
    "-" +
    HEX[lo >>> 8] +
    HEX[lo & 0xff] +
    "-" +
    HEX[0x70 | (sequence >>> 8)] +
    HEX[sequence & 0xff] +
    "-" +
    HEX[0x80 | (random[r] & 0x3f)] +
    HEX[random[r + 1]] +
    "-" +
    HEX[random[r + 2]] +
    HEX[random[r + 3]] +
    HEX[random[r + 4]] +
    HEX[random[r + 5]] +
    HEX[random[r + 6]] +
    HEX[random[r + 7]]
  );
}

/**
 * The same scheme in SQL, for a statement that makes its rows itself (an audience sync writes
 * 100 000s of messages at once, docs/audiences.md#cost): a UUIDv7 made of 16 random bytes (`random`, a bytea expression)
 * whose first 48 bits become the Unix time in ms. Ids made in the same millisecond are ordered by
 * their random bits, not in the order they were made (RFC 9562 §6.2 leaves that optional). Postgres 18's uuidv7() makes the same.
 */
export const rowIdSql = (random: string): string =>
  `encode(set_byte(overlay(${random} PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 6, (get_byte(${random}, 6) & 15) | 112), 'hex')::uuid`;
