import { describe, expect, it } from "vitest";
import { attemptFilterSchema, autoBucketSeconds, deliveryStatsQuerySchema, parseBucket, parseIsoDate } from "./contract";

describe("stats query", () => {
  it("parses bucket specs", () => {
    expect(parseBucket("30s")).toBe(30);
    expect(parseBucket("5m")).toBe(300);
    expect(parseBucket("1h")).toBe(3600);
    expect(parseBucket("1d")).toBe(86400);
    expect(parseBucket("1w")).toBeNull();
    expect(parseBucket("m")).toBeNull();
  });

  it("picks round buckets of about 60 points", () => {
    expect(autoBucketSeconds(3600_000)).toBe(60);
    expect(autoBucketSeconds(86_400_000)).toBe(1800);
    expect(autoBucketSeconds(7 * 86_400_000)).toBe(3 * 3600);
  });

  it("defaults to the last 24 h and refuses inverted or over-fine windows", () => {
    const q = deliveryStatsQuerySchema.parse({});
    expect(q.to.getTime() - q.from.getTime()).toBe(86_400_000);
    expect(deliveryStatsQuerySchema.safeParse({ from: "2026-01-02T00:00:00Z", to: "2026-01-01T00:00:00Z" }).success).toBe(false);
    const week = { from: "2026-01-01T00:00:00Z", to: "2026-01-08T00:00:00Z" };
    expect(deliveryStatsQuerySchema.safeParse({ ...week, bucket: "10s" }).success).toBe(false);
    expect(deliveryStatsQuerySchema.safeParse({ bucket: "5s" }).success).toBe(false);
  });
});

describe("ISO dates in filters", () => {
  it("reads ISO 8601 dates and times, UTC unless an offset says otherwise", () => {
    expect(parseIsoDate("2026-11-21")?.toISOString()).toBe("2026-11-21T00:00:00.000Z");
    expect(parseIsoDate("2026-11-21T15:05")?.toISOString()).toBe("2026-11-21T15:05:00.000Z");
    expect(parseIsoDate("2026-11-21T15:05:50.123Z")?.toISOString()).toBe("2026-11-21T15:05:50.123Z");
    expect(parseIsoDate("2026-11-21T15:05:50+02:00")?.toISOString()).toBe("2026-11-21T13:05:50.000Z");
  });

  it("refuses what Date.parse would read too kindly, and dates Postgres cannot store", () => {
    for (const v of [
      "' OR '1'='1",
      "1",
      "9999999999999",
      "-200000-01-01",
      "+275760-09-13T00:00:00.000Z",
      "0000-01-01",
      "2026-02-30",
      "2026-13-01",
      "2026-01-01T24:00",
      "2026-01-01 00:00",
      "",
    ]) {
      expect(parseIsoDate(v), v).toBeNull();
    }
    expect(attemptFilterSchema.safeParse({ from: "' OR '1'='1" }).success).toBe(false);
  });
});
