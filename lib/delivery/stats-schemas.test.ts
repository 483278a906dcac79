import { describe, expect, it } from "vitest";
import { autoBucketSeconds, deliveryStatsQuery, parseBucket } from "./stats-schemas";

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
    const q = deliveryStatsQuery.parse({});
    expect(q.to.getTime() - q.from.getTime()).toBe(86_400_000);
    expect(deliveryStatsQuery.safeParse({ from: "2026-01-02T00:00:00Z", to: "2026-01-01T00:00:00Z" }).success).toBe(false);
    expect(deliveryStatsQuery.safeParse({ from: "2026-01-01T00:00:00Z", to: "2026-01-08T00:00:00Z", bucket: "10s" }).success).toBe(false);
    expect(deliveryStatsQuery.safeParse({ bucket: "5s" }).success).toBe(false);
  });
});
