import { describe, expect, it } from "vitest";
import { backoffDelay, classifyStatus, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelay } from "./retry";

describe("retry policy", () => {
  it("retries 408, 429 and 5xx; fails other 4xx at once", () => {
    expect([200, 201, 204].map(classifyStatus)).toEqual(["ok", "ok", "ok"]);
    expect([408, 429, 500, 502, 503, 504].map(classifyStatus)).toEqual(Array(6).fill("retry"));
    expect([400, 401, 403, 404, 413, 422].map(classifyStatus)).toEqual(Array(6).fill("fail"));
  });

  it("reads Retry-After as seconds or an HTTP date, bounded", () => {
    const now = Date.parse("2026-11-21T15:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("0.5", now)).toBe(500);
    expect(parseRetryAfter("Sat, 21 Nov 2026 15:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 14:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("86400", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });

  it("backs off exponentially with jitter between half and all of the step, capped", () => {
    const opts = { baseMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((r) => backoffDelay(r, opts, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((r) => backoffDelay(r, opts, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("waits at least as long as the server's Retry-After", () => {
    const opts = { baseMs: 100, maxMs: 1000 };
    expect(retryDelay(1, 5000, opts, () => 0)).toBe(5000);
    expect(retryDelay(3, 10, opts, () => 0)).toBe(200);
    expect(retryDelay(1, undefined, opts, () => 0)).toBe(50);
  });
});
