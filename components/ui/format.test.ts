import { describe, expect, it } from "vitest";
import { formatBytes, formatMs, formatRate, plural, relativeTime, statusTone } from "./format";

describe("dashboard formatting", () => {
  it("says how long ago", () => {
    const now = Date.parse("2026-01-01T12:00:00Z");
    expect(relativeTime("2026-01-01T11:59:58Z", now)).toBe("just now");
    expect(relativeTime("2026-01-01T11:59:30Z", now)).toBe("30 s ago");
    expect(relativeTime("2026-01-01T11:57:00Z", now)).toBe("3 min ago");
    expect(relativeTime("2026-01-01T11:00:00Z", now)).toBe("1 h ago");
    expect(relativeTime("2025-12-31T12:00:00Z", now)).toBe("1 day ago");
    expect(relativeTime("2025-12-30T12:00:00Z", now)).toBe("2 days ago");
  });
  it("counts with the right noun: one attempt, many attempts", () => {
    expect(plural(1, "attempt")).toBe("1 attempt");
    expect(plural(0, "attempt")).toBe("0 attempts");
    expect(plural(19, "attempt")).toBe("19 attempts");
    expect(plural(1200, "attempt")).toBe("1,200 attempts");
    expect(plural(1, "delivery", "deliveries")).toBe("1 delivery");
    expect(plural(2, "delivery", "deliveries")).toBe("2 deliveries");
  });
  it("formats durations, rates and sizes", () => {
    expect(formatMs(null)).toBe("—");
    expect(formatMs(87.4)).toBe("87 ms");
    expect(formatMs(1530)).toBe("1.5 s");
    expect(formatRate(null)).toBe("—");
    expect(formatRate(1)).toBe("100%");
    expect(formatRate(0.9876)).toBe("98.8%");
    expect(formatBytes(2048)).toBe("2.0 KB");
  });
  it("colours statuses by what they mean for delivery", () => {
    expect(statusTone(204)).toBe("green");
    expect(statusTone(429)).toBe("amber");
    expect(statusTone(404)).toBe("red");
    expect(statusTone(null)).toBe("slate");
  });
});
