// Issue 12 item 7 (docs/dashboard.md#security-headers, docs/management-api.md#sessions): pages carry a
// nonce CSP, frame-ancestors 'none' and X-Frame-Options DENY, nosniff and a Referrer-Policy, plus HSTS
// over https; session cookies are Secure when the public URL is https even over a plain proxy hop.
// The Tracking API and the capture receiver stay plain JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETUP_CODE, startApp, startStack, type Proc, type Stack } from "../harness/stack";

let stack: Stack;
/** The same database behind a TLS-terminating proxy: EVENTRAIL_PUBLIC_URL is https, the hop to us is http. */
let behindTls: Proc & { url: string };

const OWNER = { email: "owner@example.com", password: "correct horse battery" };

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  behindTls = await startApp(stack.databaseUrl, { EVENTRAIL_PUBLIC_URL: "https://events.example.test" });
});
afterAll(async () => {
  await behindTls?.stop();
  await stack?.stop();
});

const nonceOf = (csp: string | null) => /'nonce-([^']+)'/.exec(csp ?? "")?.[1];

describe("security headers", () => {
  it("sends the setup and login pages with a fresh nonce CSP that Next's own scripts carry", async () => {
    const first = await fetch(`${stack.app.url}/setup?code=x`);
    expect(first.status).toBe(200);
    const csp = first.headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).not.toContain("unsafe-eval");
    const nonce = nonceOf(csp)!;
    const html = await first.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect(first.headers.get("x-frame-options")).toBe("DENY");
    expect(first.headers.get("x-content-type-options")).toBe("nosniff");
    expect(first.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(first.headers.get("strict-transport-security")).toBeNull();

    const second = await fetch(`${stack.app.url}/setup?code=x`);
    expect(nonceOf(second.headers.get("content-security-policy"))).not.toBe(nonce);
  });

  it("sends dashboard redirects and pages with the same headers", async () => {
    const redirect = await fetch(`${stack.app.url}/sources`, { redirect: "manual" });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(redirect.headers.get("x-frame-options")).toBe("DENY");
  });

  it("adds HSTS when the request came over https", async () => {
    const res = await fetch(`${stack.app.url}/setup`, { headers: { "x-forwarded-proto": "https" }, redirect: "manual" });
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(res.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
  });

  it("keeps the Tracking API and the capture receiver plain JSON, without page headers", async () => {
    const track = await fetch(`${stack.app.url}/v1/track`, { method: "POST", body: "{}" });
    expect(track.headers.get("content-type")).toMatch(/^application\/json/);
    expect(track.headers.get("content-security-policy")).toBeNull();
    const capture = await fetch(`${stack.app.url}/c/nosuchbin000000000000000`, { method: "POST", body: "{}" });
    expect(capture.status).toBe(404);
    expect(capture.headers.get("content-security-policy")).toBeNull();
  });
});

describe("session cookies", () => {
  it("are Secure when EVENTRAIL_PUBLIC_URL is https, even over a plain http hop, and HSTS is sent", async () => {
    const setup = await fetch(`${behindTls.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...OWNER, code: SETUP_CODE }),
    });
    expect(setup.status).toBe(201);
    const cookies = setup.headers.getSetCookie();
    expect(cookies).toHaveLength(2);
    for (const c of cookies) expect(c).toMatch(/;\s*Secure/i);
    const page = await fetch(`${behindTls.url}/login`);
    expect(page.headers.get("strict-transport-security")).toBe("max-age=31536000");
  });

  it("are not Secure over plain http without an https public URL (the browser would drop them)", async () => {
    const login = await fetch(`${stack.app.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(OWNER),
    });
    expect(login.status).toBe(200);
    for (const c of login.headers.getSetCookie()) expect(c).not.toMatch(/;\s*Secure/i);
  });
});
