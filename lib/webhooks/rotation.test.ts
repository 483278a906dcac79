// Secret rotation's signatures (docs/signing.md#secret-rotation): during a grace period the previous
// secret signs beside the new one, for both schemes; after it only the new one signs.
import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { buildRequest, prepareSigning, webhookIdOf, type SigningSettings } from "./request";
import { isReservedHeader, isSendableHeader } from "./rules";
import {
  generateStandardSecret,
  standardKey,
  standardSignature,
  standardSignatures,
  xSignature,
  xSignatureKey,
  xSignatures,
} from "./signing";

const now = new Date("2026-11-28T10:00:00.000Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const at = (when: Date) => ({ now: when, webhookId: webhookIdOf("0a6b1d62-3f2c-4d7e-9f59-2f1c3a4b5c6d") });
const msg = {
  type: "track",
  messageId: "m-1",
  userId: "u",
  anonymousId: null,
  timestamp: "2026-01-01T00:00:00.000Z",
  receivedAt: "2026-01-01T00:00:00.000Z",
  sentAt: null,
  payload: { event: "Order Completed", properties: { total: 30, name: "Zoë 🚀" } },
};

const OLD_STD = generateStandardSecret();
const NEW_STD = generateStandardSecret();
/** Mid-rotation: new secrets current, old ones signing for one more hour. */
const rotating: SigningSettings = {
  headers: [],
  sharedSecret: "new-shared",
  standardWebhooks: true,
  standardSecret: NEW_STD,
  previousSharedSecret: "old-shared",
  previousSharedSecretExpiresAt: later(3_600_000),
  previousStandardSecret: OLD_STD,
  previousStandardSecretExpiresAt: later(3_600_000),
};

/** What docs/signing.md#secret-rotation tells receivers to check: their secret's digest equals X-Signature or X-Signature-Next. */
function receiverAccepts(secret: string, headers: Record<string, string>, body: string): boolean {
  const expected = Buffer.from(crypto.createHmac("sha1", secret).update(body, "utf8").digest("hex"));
  return [headers["x-signature"], headers["x-signature-next"]]
    .filter((h): h is string => h !== undefined)
    .some((h) => h.length === expected.length && crypto.timingSafeEqual(Buffer.from(h), expected));
}

describe("xSignatures", () => {
  it("without a previous secret: X-Signature is the secret's, no X-Signature-Next", () => {
    expect(xSignatures(xSignatureKey("k"), null, "body")).toEqual({ signature: xSignature("k", "body"), next: null });
  });

  it("with one: X-Signature stays the previous secret's, X-Signature-Next is the new one's", () => {
    expect(xSignatures(xSignatureKey("new"), xSignatureKey("old"), "body")).toEqual({
      signature: xSignature("old", "body"),
      next: xSignature("new", "body"),
    });
  });
});

describe("standardSignatures", () => {
  it("lists the new secret's v1 signature first, then the previous one's, space-separated", () => {
    const both = standardSignatures(standardKey(NEW_STD), standardKey(OLD_STD), "msg_1", 1_700_000_000, "{}");
    expect(both).toBe(
      `${standardSignature(standardKey(NEW_STD), "msg_1", 1_700_000_000, "{}")} ${standardSignature(standardKey(OLD_STD), "msg_1", 1_700_000_000, "{}")}`,
    );
    expect(standardSignatures(standardKey(NEW_STD), null, "msg_1", 1_700_000_000, "{}")).toBe(
      standardSignature(standardKey(NEW_STD), "msg_1", 1_700_000_000, "{}"),
    );
  });
});

describe("buildRequest during and after a grace period", () => {
  it("during it: both schemes carry both signatures, and the log shows them as sent", () => {
    const r = buildRequest(rotating, msg, at(now));
    expect(r.headers["x-signature"]).toBe(xSignature("old-shared", r.body));
    expect(r.headers["x-signature-next"]).toBe(xSignature("new-shared", r.body));
    const sigs = r.headers["webhook-signature"].split(" ");
    expect(sigs).toHaveLength(2);
    expect(sigs.every((s) => s.startsWith("v1,"))).toBe(true);
    for (const name of ["x-signature", "x-signature-next", "webhook-signature"]) expect(r.loggedHeaders[name]).toBe(r.headers[name]);
    // No secret is in any header, sent or logged.
    expect(JSON.stringify([r.headers, r.loggedHeaders])).not.toMatch(/old-shared|new-shared|whsec_/);
  });

  it("during it: a receiver holding either secret verifies, for both schemes (the standardwebhooks package)", () => {
    // The package checks the timestamp against the real clock: this request is built now.
    const today = new Date();
    const grace = new Date(today.getTime() + 3_600_000);
    const req = buildRequest({ ...rotating, previousSharedSecretExpiresAt: grace, previousStandardSecretExpiresAt: grace }, msg, at(today));
    expect(receiverAccepts("old-shared", req.headers, req.body)).toBe(true);
    expect(receiverAccepts("new-shared", req.headers, req.body)).toBe(true);
    expect(receiverAccepts("other", req.headers, req.body)).toBe(false);
    expect(new Webhook(OLD_STD).verify(req.body, req.headers)).toEqual(JSON.parse(req.body));
    expect(new Webhook(NEW_STD).verify(req.body, req.headers)).toEqual(JSON.parse(req.body));
    expect(() => new Webhook(generateStandardSecret()).verify(req.body, req.headers)).toThrow();
  });

  it("after it (checked when prepared, from the stored end): only the new secret signs", () => {
    for (const when of [later(3_600_000), later(3_600_001), later(86_400_000)]) {
      const r = buildRequest(rotating, msg, at(when));
      expect(r.headers["x-signature"]).toBe(xSignature("new-shared", r.body));
      expect(r.headers["x-signature-next"]).toBeUndefined();
      expect(r.headers["webhook-signature"]).toBe(
        standardSignature(standardKey(NEW_STD), r.headers["webhook-id"], Number(r.headers["webhook-timestamp"]), r.body),
      );
      expect(receiverAccepts("new-shared", r.headers, r.body)).toBe(true);
      expect(receiverAccepts("old-shared", r.headers, r.body)).toBe(false);
    }
    const prepared = prepareSigning(rotating, later(3_600_000));
    expect([prepared.previousSharedKey, prepared.previousStandardKey]).toEqual([null, null]);
    expect(prepareSigning(rotating, later(3_599_999)).previousSharedKey).not.toBeNull();
  });

  it("a previous secret without an end, or without a current secret, signs nothing", () => {
    const noEnd = buildRequest({ ...rotating, previousSharedSecretExpiresAt: null, previousStandardSecretExpiresAt: null }, msg, at(now));
    expect(noEnd.headers["x-signature"]).toBe(xSignature("new-shared", noEnd.body));
    expect(noEnd.headers["webhook-signature"].split(" ")).toHaveLength(1);
    const removed = buildRequest({ ...rotating, sharedSecret: null, standardSecret: null, standardWebhooks: false }, msg, at(now));
    expect(Object.keys(removed.headers).filter((h) => h.startsWith("x-signature") || h.startsWith("webhook-"))).toEqual([]);
  });
});

describe("X-Signature-Next is ours", () => {
  it("is a reserved name in any case: shown unmasked in the log, never sent from a stored custom header", () => {
    expect(isReservedHeader("X-Signature-Next")).toBe(true);
    expect(isReservedHeader(" x-signature-next ")).toBe(true);
    expect(isSendableHeader({ name: "X-Signature-Next", value: "forged" })).toBe(false);
    const r = buildRequest({ ...rotating, headers: [{ name: "X-Signature-Next", value: "forged" }] }, msg, at(later(1e10)));
    expect(Object.entries(r.headers).filter(([n]) => n.toLowerCase() === "x-signature-next")).toEqual([]);
  });
});

describe("docs/signing.md's worked example of a rotation", () => {
  it("gives the headers the docs show, during the grace period and after it", () => {
    const body =
      '{"version":1,"type":"track","userId":"u_123","event":"Order Completed","properties":{"total":42.5},"timestamp":"2026-11-21T15:05:50.000Z","context":{},"messageId":"m_1","receivedAt":"2026-11-21T15:05:50.120Z","sentAt":"2026-11-21T15:05:50.100Z"}';
    const sentAt = new Date(1795273551_000);
    const graceEnd = new Date(sentAt.getTime() + 60_000);
    const settings: SigningSettings = {
      headers: [],
      sharedSecret: "n3w-s3cr3t-2026",
      standardWebhooks: true,
      standardSecret: "whsec_ZXZlbnRyYWlsLXJvdGF0aW9uLWV4YW1wbGUta2V5ISE=",
      previousSharedSecret: "s3cr3t",
      previousSharedSecretExpiresAt: graceEnd,
      previousStandardSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      previousStandardSecretExpiresAt: graceEnd,
    };
    const opts = { webhookId: "msg_0a6b1d62-3f2c-4d7e-9f59-2f1c3a4b5c6d", body };
    const during = buildRequest(settings, msg, { ...opts, now: sentAt });
    expect(during.headers).toMatchObject({
      "x-signature": "3f0c14e781dd902b94bf9be111c6be105b6714b2",
      "x-signature-next": "bfe392cce2f7279738d5b5b4b9a5c90569cd0120",
      "webhook-timestamp": "1795273551",
      "webhook-signature": "v1,Yg42C/2c8VTnfdAfbzBuMmY98ROg79qlMAUfqNr+vgA= v1,GJYIC6ZtQIRy+fIKn9lMroQK5z+K5SRtGpPJokS0dF4=",
    });
    const after = buildRequest(settings, msg, { ...opts, now: graceEnd });
    expect(after.headers["x-signature"]).toBe("bfe392cce2f7279738d5b5b4b9a5c90569cd0120");
    expect(after.headers["x-signature-next"]).toBeUndefined();
  });
});
