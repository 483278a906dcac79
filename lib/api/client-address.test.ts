import { describe, expect, it } from "vitest";
import { clientAddressOf } from "./client-address";

describe("clientAddressOf", () => {
  it("takes the socket's peer when no proxy is trusted, whatever X-Forwarded-For claims", () => {
    expect(clientAddressOf({ peer: "203.0.113.9", forwardedFor: "1.2.3.4", trustedProxies: 0 })).toBe("203.0.113.9");
    expect(clientAddressOf({ peer: "::ffff:203.0.113.9", forwardedFor: null, trustedProxies: 0 })).toBe("203.0.113.9");
  });

  it("behind one trusted proxy takes the entry it appended (the right-most), never the client's own entries", () => {
    expect(clientAddressOf({ peer: "10.0.0.2", forwardedFor: "6.6.6.6, 198.51.100.7", trustedProxies: 1 })).toBe("198.51.100.7");
    expect(clientAddressOf({ peer: "10.0.0.2", forwardedFor: "198.51.100.7", trustedProxies: 1 })).toBe("198.51.100.7");
  });

  it("behind two proxies takes the second entry from the right, and falls back to the peer without the header", () => {
    expect(clientAddressOf({ peer: "10.0.0.2", forwardedFor: "6.6.6.6, 198.51.100.7, 10.0.0.9", trustedProxies: 2 })).toBe("198.51.100.7");
    expect(clientAddressOf({ peer: "10.0.0.2", forwardedFor: "198.51.100.7", trustedProxies: 3 })).toBe("198.51.100.7");
    expect(clientAddressOf({ peer: "10.0.0.2", forwardedFor: null, trustedProxies: 1 })).toBe("10.0.0.2");
    expect(clientAddressOf({ peer: "10.0.0.2", forwardedFor: " , ", trustedProxies: 1 })).toBe("10.0.0.2");
  });
});
