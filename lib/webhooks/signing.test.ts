import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateStandardSecret, standardWebhooksHeaders, xSignature } from "./signing";
import { isStandardSecret } from "./rules";

describe("X-Signature", () => {
  it("is lowercase hex HMAC-SHA1 over the exact UTF-8 bytes", () => {
    // RFC 2202 test case 2
    expect(xSignature("Jefe", "what do ya want for nothing?")).toBe("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
  });

  it("verifies the seed's way (HMAC over JSON.stringify(JSON.parse(body))) with emoji, non-ASCII, floats and large integers", () => {
    // biome-ignore lint/correctness/noPrecisionLoss: on purpose: the big number's digits are what JSON round-trips must keep as sent
    const payload = { properties: { name: "Zoë 🚀 東京", price: 0.1 + 0.2, big: 12345678901234567890, neg: -1e-7, nested: [1.5, "ü"] } };
    const body = JSON.stringify(payload);
    const sig = xSignature("s3cr3t ✓", body);
    const receiverSide = crypto
      .createHmac("sha1", "s3cr3t ✓")
      .update(JSON.stringify(JSON.parse(body)))
      .digest("hex");
    expect(sig).toBe(receiverSide);
  });
});

describe("Standard Webhooks", () => {
  it("produces headers the standardwebhooks package accepts, and it rejects a tampered body", () => {
    const secret = generateStandardSecret();
    expect(isStandardSecret(secret)).toBe(true);
    const body = JSON.stringify({ type: "track", emoji: "🎉" });
    const ts = Math.floor(Date.now() / 1000);
    const headers = standardWebhooksHeaders({ secret, id: "msg_1", timestampSeconds: ts, body });
    const wh = new Webhook(secret);
    expect(wh.verify(body, headers)).toEqual({ type: "track", emoji: "🎉" });
    expect(() => wh.verify(body.replace("track", "page"), headers)).toThrow();
  });

  it("recognises well-formed secrets only", () => {
    expect(isStandardSecret(`whsec_${Buffer.alloc(24).toString("base64")}`)).toBe(true);
    expect(isStandardSecret("whsec_c2hvcnQ=")).toBe(false);
    expect(isStandardSecret("secret")).toBe(false);
  });
});
