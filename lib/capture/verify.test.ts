import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyStandardWebhook, verifyXSignature } from "./verify";

const body = JSON.stringify({ type: "track", event: "Order Completed", properties: { total: 42, note: "é✓" } });

describe("verifyXSignature", () => {
  const sig = crypto.createHmac("sha1", "s3cret").update(body).digest("hex");

  it("accepts the HMAC-SHA1 hex of the body", async () => {
    expect((await verifyXSignature({ headers: { "x-signature": sig }, body, truncated: false, secret: "s3cret" })).state).toBe("valid");
  });
  it("rejects a wrong secret or a changed body", async () => {
    expect((await verifyXSignature({ headers: { "x-signature": sig }, body, truncated: false, secret: "other" })).state).toBe("invalid");
    expect((await verifyXSignature({ headers: { "x-signature": sig }, body: body + " ", truncated: false, secret: "s3cret" })).state).toBe("invalid");
  });
  it("says why it cannot verify", async () => {
    expect((await verifyXSignature({ headers: {}, body, truncated: false, secret: "s3cret" })).state).toBe("absent");
    expect((await verifyXSignature({ headers: { "x-signature": sig }, body, truncated: true, secret: "s3cret" })).state).toBe("unverifiable");
    expect((await verifyXSignature({ headers: { "x-signature": sig }, body, truncated: false, secret: "" })).state).toBe("unverifiable");
  });
});

describe("verifyStandardWebhook", () => {
  const secret = `whsec_${crypto.randomBytes(24).toString("base64")}`;
  const signed = () => {
    const wh = new Webhook(secret);
    const id = "msg_1";
    const ts = new Date();
    return { "webhook-id": id, "webhook-timestamp": String(Math.floor(ts.getTime() / 1000)), "webhook-signature": wh.sign(id, ts, body) };
  };

  it("agrees with the standardwebhooks library", async () => {
    expect((await verifyStandardWebhook({ headers: signed(), body, truncated: false, secret })).state).toBe("valid");
  });
  it("finds a v1 signature among several", async () => {
    const h = signed();
    h["webhook-signature"] = `v1,AAAA ${h["webhook-signature"]}`;
    expect((await verifyStandardWebhook({ headers: h, body, truncated: false, secret })).state).toBe("valid");
  });
  it("rejects another secret and partial headers", async () => {
    const other = `whsec_${crypto.randomBytes(24).toString("base64")}`;
    expect((await verifyStandardWebhook({ headers: signed(), body, truncated: false, secret: other })).state).toBe("invalid");
    const { "webhook-id": _, ...partial } = signed();
    expect((await verifyStandardWebhook({ headers: partial, body, truncated: false, secret })).state).toBe("invalid");
    expect((await verifyStandardWebhook({ headers: {}, body, truncated: false, secret })).state).toBe("absent");
  });
});
