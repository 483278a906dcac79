import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyStandardWebhook, verifyXSignature } from "./verify";

const text = JSON.stringify({ type: "track", event: "Order Completed", properties: { total: 42, note: "é✓" } });
const body = new TextEncoder().encode(text);

describe("verifyXSignature", () => {
  const sig = crypto.createHmac("sha1", "s3cret").update(text).digest("hex");

  it("accepts the HMAC-SHA1 hex of the body bytes", () => {
    expect(verifyXSignature({ headers: { "x-signature": sig }, body, truncated: false, secret: "s3cret" }).state).toBe("valid");
  });
  it("checks bytes that are not UTF-8 as they are", () => {
    const raw = new Uint8Array([0xff, 0xfe, 0x00, 0x7b]);
    const s = crypto.createHmac("sha1", "k").update(raw).digest("hex");
    expect(verifyXSignature({ headers: { "x-signature": s }, body: raw, truncated: false, secret: "k" }).state).toBe("valid");
  });
  it("rejects a wrong secret or a changed body, without telling the expected digest", () => {
    const wrong = verifyXSignature({ headers: { "x-signature": sig }, body, truncated: false, secret: "other" });
    expect(wrong.state).toBe("invalid");
    expect(wrong.detail).not.toContain(crypto.createHmac("sha1", "other").update(text).digest("hex"));
    const changed = new TextEncoder().encode(`${text} `);
    expect(verifyXSignature({ headers: { "x-signature": sig }, body: changed, truncated: false, secret: "s3cret" }).state).toBe("invalid");
  });
  it("says why it cannot verify", () => {
    expect(verifyXSignature({ headers: {}, body, truncated: false, secret: "s3cret" }).state).toBe("absent");
    expect(verifyXSignature({ headers: { "x-signature": sig }, body, truncated: true, secret: "s3cret" }).state).toBe("unverifiable");
    expect(verifyXSignature({ headers: { "x-signature": sig }, body, truncated: false, secret: null }).state).toBe("unverifiable");
  });
});

describe("verifyStandardWebhook", () => {
  const secret = `whsec_${crypto.randomBytes(24).toString("base64")}`;
  const signed = () => {
    const wh = new Webhook(secret);
    const id = "msg_1";
    const ts = new Date();
    return { "webhook-id": id, "webhook-timestamp": String(Math.floor(ts.getTime() / 1000)), "webhook-signature": wh.sign(id, ts, text) };
  };

  it("agrees with the standardwebhooks library", () => {
    expect(verifyStandardWebhook({ headers: signed(), body, truncated: false, secret }).state).toBe("valid");
  });
  it("finds a v1 signature among several", () => {
    const h = signed();
    h["webhook-signature"] = `v1,AAAA ${h["webhook-signature"]}`;
    expect(verifyStandardWebhook({ headers: h, body, truncated: false, secret }).state).toBe("valid");
  });
  it("rejects another secret and partial headers", () => {
    const other = `whsec_${crypto.randomBytes(24).toString("base64")}`;
    expect(verifyStandardWebhook({ headers: signed(), body, truncated: false, secret: other }).state).toBe("invalid");
    const { "webhook-id": _, ...partial } = signed();
    expect(verifyStandardWebhook({ headers: partial, body, truncated: false, secret }).state).toBe("invalid");
    expect(verifyStandardWebhook({ headers: {}, body, truncated: false, secret }).state).toBe("absent");
    expect(verifyStandardWebhook({ headers: signed(), body, truncated: false, secret: null }).state).toBe("unverifiable");
  });
});

describe("during a secret rotation (docs/signing.md#secret-rotation)", () => {
  const hex = (k: string) => crypto.createHmac("sha1", k).update(text).digest("hex");

  it("X-Signature: the old secret's in X-Signature or the new one's in X-Signature-Next is valid while the old one is in grace", () => {
    const headers = { "x-signature": hex("old"), "x-signature-next": hex("new") };
    expect(verifyXSignature({ headers, body, truncated: false, secret: "new", previousSecret: "old" }).state).toBe("valid");
    expect(
      verifyXSignature({ headers: { "x-signature-next": hex("new"), "x-signature": hex("x") }, body, truncated: false, secret: "new" })
        .state,
    ).toBe("valid");
    // After the grace period a request signed only with the old secret no longer matches.
    expect(verifyXSignature({ headers: { "x-signature": hex("old") }, body, truncated: false, secret: "new" }).state).toBe("invalid");
  });

  it("Standard Webhooks: either secret's v1 entry is valid while the old one is in grace", () => {
    const oldSecret = `whsec_${crypto.randomBytes(24).toString("base64")}`;
    const newSecret = `whsec_${crypto.randomBytes(24).toString("base64")}`;
    const ts = new Date();
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(ts.getTime() / 1000)),
      "webhook-signature": new Webhook(oldSecret).sign("msg_1", ts, text),
    };
    expect(verifyStandardWebhook({ headers, body, truncated: false, secret: newSecret, previousSecret: oldSecret }).state).toBe("valid");
    expect(verifyStandardWebhook({ headers, body, truncated: false, secret: newSecret }).state).toBe("invalid");
  });
});
