import { describe, expect, it } from "vitest";
import { UNHEALTHY_AFTER, computeEndpointHealth, type RecentAttempt } from "./health";

const ok = (t: number): RecentAttempt => ({
  outcome: "success",
  startedAt: `2026-01-01T00:00:${String(t).padStart(2, "0")}.000Z`,
  errorKind: null,
  errorText: null,
  responseStatus: 200,
});
const bad = (t: number, status: number | null = 503, kind: string | null = "http"): RecentAttempt => ({
  outcome: "retry",
  startedAt: `2026-01-01T00:00:${String(t).padStart(2, "0")}.000Z`,
  errorKind: kind,
  errorText: kind === "timeout" ? "no complete response within 5 s" : null,
  responseStatus: status,
});

describe("computeEndpointHealth", () => {
  it("is unknown without recent attempts", () => {
    expect(computeEndpointHealth("https://a.example/h", [])).toMatchObject({
      state: "unknown",
      attempts: 0,
      successRate: null,
      consecutiveFailures: 0,
      lastError: null,
    });
  });

  it("is healthy when every recent attempt succeeded", () => {
    const h = computeEndpointHealth("u", [ok(3), ok(2), ok(1)]);
    expect(h).toMatchObject({
      state: "healthy",
      attempts: 3,
      successRate: 1,
      consecutiveFailures: 0,
      lastSuccessAt: ok(3).startedAt,
      lastFailureAt: null,
    });
  });

  it("is degraded after a failure since the last success, or when the success rate is low", () => {
    expect(computeEndpointHealth("u", [bad(4), ok(3), ok(2)]).state).toBe("degraded");
    // 8 of 10 succeeded, the latest did: still degraded (below 90 %).
    const mixed = [ok(10), ok(9), bad(8), ok(7), ok(6), bad(5), ok(4), ok(3), ok(2), ok(1)];
    expect(computeEndpointHealth("u", mixed)).toMatchObject({
      state: "degraded",
      successRate: 0.8,
      consecutiveFailures: 0,
      lastError: "HTTP 503",
    });
  });

  it(`is unhealthy after ${UNHEALTHY_AFTER} failures in a row, with the last error`, () => {
    const run = [bad(9, null, "timeout"), bad(8), bad(7), bad(6), bad(5), ok(4)];
    const h = computeEndpointHealth("u", run);
    expect(h).toMatchObject({
      state: "unhealthy",
      consecutiveFailures: 5,
      lastError: "timeout: no complete response within 5 s",
      lastSuccessAt: ok(4).startedAt,
      lastFailureAt: run[0].startedAt,
    });
    expect(computeEndpointHealth("u", run.slice(1)).state).toBe("degraded");
  });

  it("judges at most the 50 newest attempts", () => {
    const many = [...Array.from({ length: 50 }, (_, i) => ok(i % 60)), ...Array.from({ length: 20 }, () => bad(0))];
    expect(computeEndpointHealth("u", many)).toMatchObject({ state: "healthy", attempts: 50, successRate: 1 });
  });
});
