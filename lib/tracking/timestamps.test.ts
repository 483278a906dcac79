import { describe, expect, it } from "vitest";
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS, correctedTimestamp, parseIsoTimestamp, toIso } from "./timestamps";

const iso = (s: string) => {
  const ms = parseIsoTimestamp(s);
  return ms === null ? null : toIso(ms);
};

describe("parseIsoTimestamp", () => {
  it.each([
    ["2026-11-21T15:05:50+0000", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21T15:05:50Z", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21T15:05:50.123Z", "2026-11-21T15:05:50.123Z"],
    ["2026-11-21T15:05:50.1Z", "2026-11-21T15:05:50.100Z"],
    ["2026-11-21T15:05:50.123456789Z", "2026-11-21T15:05:50.123Z"],
    ["2026-11-21T15:05:50.123456789-07:00", "2026-11-21T22:05:50.123Z"],
    ["2026-11-21T17:05:50+02:00", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21T17:05:50+0200", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21T17:05:50+02", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21T10:35:50-0430", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21 15:05:50", "2026-11-21T15:05:50.000Z"],
    ["2026-11-21T15:05", "2026-11-21T15:05:00.000Z"],
    ["2026-11-21", "2026-11-21T00:00:00.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["2026-11-21T15:05:50,5Z", "2026-11-21T15:05:50.500Z"],
    ["2026-11-21T00:30:00+01:00", "2026-11-20T23:30:00.000Z"],
    ["0099-01-01T00:00:00Z", "0099-01-01T00:00:00.000Z"],
  ])("reads %s as %s", (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it.each([
    "",
    "yesterday",
    "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "2026-11-21T24:00:00Z",
    "2026-11-21T15:61:00Z",
    "2026-11-21T15:05:50+2500",
    "2026-11-21T15:05:50 +0000",
    "21/11/2026",
    "1732201550",
    "2026-11-21T15:05:50.Z",
    "Sat, 21 Nov 2026 15:05:50 GMT",
  ])("rejects %j", (input) => {
    expect(parseIsoTimestamp(input)).toBeNull();
  });
});

describe("correctedTimestamp", () => {
  const t = (s: string) => parseIsoTimestamp(s)!;
  it("takes the client's clock skew off the arrival time", () => {
    // The client's clock is 1 h fast: it sent at 16:00 (its time) an event of 15:59:30 (its time).
    const ms = correctedTimestamp({
      receivedAt: t("2026-11-21T15:00:01Z"),
      sentAt: t("2026-11-21T16:00:00Z"),
      original: t("2026-11-21T15:59:30Z"),
    });
    expect(toIso(ms)).toBe("2026-11-21T14:59:31.000Z");
  });
  it("keeps a historical timestamp (sent now, happened long ago)", () => {
    const ms = correctedTimestamp({
      receivedAt: t("2026-11-21T15:00:00Z"),
      sentAt: t("2026-11-21T15:00:00Z"),
      original: t("2020-01-01T00:00:00Z"),
    });
    expect(toIso(ms)).toBe("2020-01-01T00:00:00.000Z");
  });
  it("uses the client's timestamp without sentAt, and the arrival time without either", () => {
    expect(correctedTimestamp({ receivedAt: 5, sentAt: null, original: 3 })).toBe(3);
    expect(correctedTimestamp({ receivedAt: 5, sentAt: 9, original: null })).toBe(5);
  });
});

describe("toIso", () => {
  // Its own calendar arithmetic must write what Date#toISOString writes, for every storable instant.
  const edges = [
    MIN_TIMESTAMP_MS,
    MAX_TIMESTAMP_MS,
    0,
    -1,
    1,
    Date.UTC(1969, 11, 31, 23, 59, 59, 999),
    Date.UTC(2000, 1, 29, 12),
    Date.UTC(2100, 1, 28, 23, 59, 59, 999),
    Date.UTC(2100, 2, 1),
    Date.UTC(2400, 1, 29),
    Date.UTC(1600, 1, 29),
    Date.UTC(2026, 10, 21, 15, 5, 50, 123),
  ];
  it("matches Date#toISOString at the edges of months, leap years, the epoch and the storable range", () => {
    for (const ms of edges) expect(toIso(ms), String(ms)).toBe(new Date(ms).toISOString());
    const y99 = new Date(0);
    y99.setUTCFullYear(99, 11, 31);
    expect(toIso(y99.getTime())).toBe("0099-12-31T00:00:00.000Z");
  });

  it("matches Date#toISOString for 200,000 random instants in years 0001–9999", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(MIN_TIMESTAMP_MS + random() * (MAX_TIMESTAMP_MS - MIN_TIMESTAMP_MS));
      const expected = new Date(ms).toISOString();
      if (toIso(ms) !== expected) expect(toIso(ms), String(ms)).toBe(expected);
      // and reading it back gives the same instant
      if (parseIsoTimestamp(expected) !== ms) expect(parseIsoTimestamp(expected), expected).toBe(ms);
    }
  });

  it("leaves what is outside the storable years, fractional or invalid to Date#toISOString", () => {
    expect(toIso(MAX_TIMESTAMP_MS + 1)).toBe("+010000-01-01T00:00:00.000Z");
    expect(toIso(MIN_TIMESTAMP_MS - 1)).toBe("0000-12-31T23:59:59.999Z");
    expect(toIso(1.5)).toBe("1970-01-01T00:00:00.001Z");
    expect(() => toIso(Number.NaN)).toThrow(RangeError);
  });
});
