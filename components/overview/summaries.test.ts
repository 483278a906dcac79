import { describe, expect, it } from "vitest";
import type { DeliveryStatsDto } from "@/lib/request-log/contract";
import { bucketWords, summariseLatency, summariseSuccess, summariseVolume } from "./summaries";

const row = (o: Partial<DeliveryStatsDto["totals"]>) => ({
  total: 0,
  success: 0,
  retry: 0,
  failed: 0,
  successRate: null,
  p50: null,
  p95: null,
  p99: null,
  ...o,
});
const stats: DeliveryStatsDto = {
  destinationId: null,
  from: "2026-01-01T00:00:00Z",
  to: "2026-01-01T01:00:00Z",
  bucketSeconds: 60,
  totals: row({ total: 1234, success: 1200, retry: 20, failed: 14, successRate: 1200 / 1234, p50: 87, p95: 1200, p99: 2300 }),
  events: { total: 1210, delivered: 1200, pending: 4, failed: 6, retried: 20 },
  series: [
    { ...row({ total: 10, success: 8, successRate: 0.8 }), start: "2026-01-01T00:00:00Z" },
    { ...row({}), start: "2026-01-01T00:01:00Z" },
  ],
};

describe("chart summaries", () => {
  it("names each chart by what its data says", () => {
    expect(summariseVolume(stats)).toBe(
      "Bar chart of attempts by outcome, one bar per 1 minute: 1,234 attempts in total, 1,200 successful, 20 retrying, 14 failed.",
    );
    expect(summariseSuccess(stats)).toBe("Area chart of the success rate per 1 minute: 97.2% overall, lowest 80.0%.");
    expect(summariseLatency(stats)).toBe("Line chart of attempt latency per 1 minute: p50 87 ms, p95 1.2 s, p99 2.3 s overall.");
  });
  it("words bucket widths", () => {
    expect(bucketWords(300)).toBe("5 minutes");
    expect(bucketWords(3600)).toBe("1 hour");
    expect(bucketWords(86400 * 2)).toBe("2 days");
    expect(bucketWords(30)).toBe("30 seconds");
  });
});
