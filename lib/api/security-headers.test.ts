import { describe, expect, it } from "vitest";
import { isHttpsRequest, newNonce, pageSecurityHeaders } from "./security-headers";

describe("isHttpsRequest", () => {
  it("is https when the public URL is, even over a plain proxy hop", () => {
    expect(
      isHttpsRequest({ publicUrl: "https://events.example.com", requestUrl: "http://10.0.0.5:3000/api/auth/login", forwardedProto: null }),
    ).toBe(true);
  });
  it("is https when the request came over https, directly or per X-Forwarded-Proto", () => {
    expect(isHttpsRequest({ requestUrl: "https://events.example.com/login", forwardedProto: null })).toBe(true);
    expect(isHttpsRequest({ requestUrl: "http://10.0.0.5/login", forwardedProto: "https" })).toBe(true);
    expect(isHttpsRequest({ requestUrl: "http://10.0.0.5/login", forwardedProto: "HTTPS, http" })).toBe(true);
  });
  it("is plain http otherwise", () => {
    expect(isHttpsRequest({ publicUrl: "http://localhost:3000", requestUrl: "http://localhost:3000/login", forwardedProto: "http" })).toBe(
      false,
    );
    expect(isHttpsRequest({ requestUrl: "http://localhost:3000/login", forwardedProto: null })).toBe(false);
  });
});

describe("pageSecurityHeaders", () => {
  it("allows only the nonce's scripts, forbids framing, sniffing and cross-origin referrers", () => {
    const h = pageSecurityHeaders({ nonce: "abc123==", https: false });
    expect(h["content-security-policy"]).toContain("script-src 'self' 'nonce-abc123==' 'strict-dynamic'");
    expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"]).toContain("object-src 'none'");
    expect(h["content-security-policy"]).not.toContain("unsafe-eval");
    expect(h["content-security-policy"]).not.toContain("upgrade-insecure-requests");
    expect(h).toMatchObject({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "strict-origin-when-cross-origin",
    });
    expect(h["strict-transport-security"]).toBeUndefined();
  });
  it("adds HSTS and upgrades sub-requests over https", () => {
    const h = pageSecurityHeaders({ nonce: "n", https: true });
    expect(h["strict-transport-security"]).toBe("max-age=31536000");
    expect(h["content-security-policy"]).toContain("upgrade-insecure-requests");
  });
  it("makes a new unpredictable nonce each time", () => {
    const a = newNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(newNonce()).not.toBe(a);
  });
});
