/**
 * The client address the edge uses and passes on (docs/edge.md#client-addresses): nothing a client
 * sends is taken as its address unless EVENTRAIL_TRUSTED_PROXIES says proxies are in front.
 */
import type http from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddressOfRaw, forwardedFor, publicBaseUrl } from "./address";
import { forwardedHeaders } from "./proxy";

const req = (headers: http.IncomingHttpHeaders, peer = "::ffff:203.0.113.7") =>
  ({ headers, socket: { remoteAddress: peer } }) as unknown as http.IncomingMessage;

describe("client address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddressOfRaw(req({ "x-forwarded-for": "6.6.6.6" }), 0)).toBe("203.0.113.7");
  });
  it("is the entry N places from the right with N trusted proxies; entries further left are the client's", () => {
    expect(clientAddressOfRaw(req({ "x-forwarded-for": "6.6.6.6, 198.51.100.1" }), 1)).toBe("198.51.100.1");
    expect(clientAddressOfRaw(req({ "x-forwarded-for": "6.6.6.6, 198.51.100.1, 10.0.0.2" }), 2)).toBe("198.51.100.1");
  });
  it("is appended to X-Forwarded-For for the web app, never replacing what the proxies wrote", () => {
    expect(forwardedFor(req({ "x-forwarded-for": "6.6.6.6" }))).toBe("6.6.6.6, ::ffff:203.0.113.7");
    expect(forwardedFor(req({}))).toBe("::ffff:203.0.113.7");
    expect(forwardedHeaders(req({ "x-forwarded-for": "6.6.6.6", "x-a": "1", connection: "x-a" }), null)).toEqual({
      "x-forwarded-for": "6.6.6.6, ::ffff:203.0.113.7",
    });
  });
});

describe("public base URL", () => {
  it("is EVENTRAIL_PUBLIC_URL when set", () => {
    expect(publicBaseUrl(req({ host: "h" }), { configured: "https://events.example.com/", trustedProxies: 0 })).toBe(
      "https://events.example.com",
    );
  });
  it("is the request's Host, https only when a trusted proxy says so", () => {
    expect(publicBaseUrl(req({ host: "h:3000", "x-forwarded-proto": "https" }), { configured: null, trustedProxies: 0 })).toBe(
      "http://h:3000",
    );
    expect(publicBaseUrl(req({ host: "h", "x-forwarded-proto": "https" }), { configured: null, trustedProxies: 1 })).toBe("https://h");
  });
});
