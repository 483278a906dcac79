import { describe, expect, it } from "vitest";
import { classifyAttempt, errorKindOf, parseRetryAfter } from "./outcome";

const res = (status: number, headers: Record<string, string> = {}) => ({ kind: "response" as const, status, headers, body: "" });

describe("classifyAttempt (docs/webhooks.md#outcomes)", () => {
  it.each([
    [200, "success"],
    [204, "success"],
    [299, "success"],
    [500, "retry"],
    [502, "retry"],
    [503, "retry"],
    [599, "retry"],
    [408, "retry"],
    [429, "retry"],
    [501, "retry"],
    [505, "retry"],
    [511, "retry"],
    [301, "failed"],
    [302, "failed"],
    [304, "failed"],
    [400, "failed"],
    [401, "failed"],
    [404, "failed"],
    [410, "failed"],
    [422, "failed"],
  ])("HTTP %i → %s", (status, outcome) => {
    expect(classifyAttempt(res(status)).outcome).toBe(outcome);
  });

  it("says redirects are not followed", () => {
    expect(classifyAttempt(res(302)).errorText).toMatch(/redirects are not followed/);
  });

  it("honours Retry-After on 429 and 503", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    expect(classifyAttempt(res(429, { "Retry-After": "7" }), now).retryAfterMs).toBe(7000);
    expect(classifyAttempt(res(503, { "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now).retryAfterMs).toBe(30_000);
  });

  it.each([
    ["timeout", "retry"],
    ["connection", "retry"],
    ["dns", "retry"],
    ["tls", "failed"],
    ["ssrf", "failed"],
    // a failed token request (docs/endpoint-auth.md#token-requests) is retried like a 5xx
    ["auth", "retry"],
  ] as const)("error %s → %s", (errorKind, outcome) => {
    expect(classifyAttempt({ kind: "error", errorKind, message: "x" })).toMatchObject({ outcome, errorKind });
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and dates and ignores garbage", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter(" 120 ", now)).toBe(120_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("errorKindOf", () => {
  it.each([
    [{ code: "ECONNREFUSED" }, "connection"],
    [{ code: "ECONNRESET" }, "connection"],
    [{ code: "UND_ERR_SOCKET" }, "connection"],
    [{ code: "ENOTFOUND" }, "dns"],
    [{ code: "EAI_AGAIN" }, "dns"],
    [{ code: "DEPTH_ZERO_SELF_SIGNED_CERT" }, "tls"],
    [{ code: "ERR_TLS_CERT_ALTNAME_INVALID" }, "tls"],
    [{ code: "CERT_HAS_EXPIRED" }, "tls"],
    [{ code: "UND_ERR_HEADERS_TIMEOUT" }, "timeout"],
    [{ code: "UND_ERR_CONNECT_TIMEOUT" }, "timeout"],
    [{ code: "ERR_EVENTRAIL_SSRF" }, "ssrf"],
    [{ cause: { code: "ECONNREFUSED" } }, "connection"],
  ])("%j → %s", (err, kind) => {
    expect(errorKindOf(err)).toBe(kind);
  });
});
