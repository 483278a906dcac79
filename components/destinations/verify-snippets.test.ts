import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { standardKey, standardSignatures, standardWebhooksHeaders, xSignature, xSignatureKey, xSignatures } from "@/lib/webhooks/signing";
import { SNIPPET_FUNCTIONS, VERIFY_SNIPPETS, type SigningScheme } from "./verify-snippets";

type Verify = (secret: string, rawBody: Buffer, headers: Record<string, string | undefined>, tolerance?: number) => boolean;

/** The Node snippet exactly as the page shows it, run: its `require` is Node's, its function returned. */
function nodeSnippet(scheme: SigningScheme): Verify {
  const code = VERIFY_SNIPPETS[scheme].node;
  const requireCrypto = (name: string) => {
    if (name !== "node:crypto") throw new Error(`the snippet requires ${name}`);
    return crypto;
  };
  return new Function("require", `${code}\nreturn ${SNIPPET_FUNCTIONS[scheme].node};`)(requireCrypto) as Verify;
}

// A body as a destination sends it: non-ASCII, an emoji and an integer beyond 2^53 written exactly.
const body = '{"type":"track","event":"Order Completed","userId":"zoë 🚀","properties":{"big":12345678901234567890,"total":42.5}}';
const raw = Buffer.from(body, "utf8");

describe("the Node X-Signature snippet, against our signer", () => {
  const verify = nodeSnippet("xSignature");
  const secret = "s3cr3t-✓-0123456789";

  it("accepts the body as signed and refuses a changed body, another secret or no signature", () => {
    expect(verify(secret, raw, { "x-signature": xSignature(secret, body) })).toBe(true);
    expect(verify(secret, Buffer.from(body.replace("42.5", "42.6")), { "x-signature": xSignature(secret, body) })).toBe(false);
    expect(verify("another-secret-0123", raw, { "x-signature": xSignature(secret, body) })).toBe(false);
    expect(verify(secret, raw, {})).toBe(false);
    expect(verify(secret, raw, { "x-signature": "" })).toBe(false);
  });

  it("fails the re-serialised body of an exact-numbers destination: it must verify over the raw bytes", () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body)));
    expect(verify(secret, reserialised, { "x-signature": xSignature(secret, body) })).toBe(false);
  });

  it("accepts either secret during a rotation's grace period (X-Signature-Next), only the new one after", () => {
    const oldSecret = "old-secret-0123456789";
    const during = xSignatures(xSignatureKey(secret), xSignatureKey(oldSecret), body);
    const headers = { "x-signature": during.signature, "x-signature-next": during.next ?? undefined };
    expect(verify(oldSecret, raw, headers)).toBe(true);
    expect(verify(secret, raw, headers)).toBe(true);
    const after = xSignatures(xSignatureKey(secret), null, body);
    expect(verify(secret, raw, { "x-signature": after.signature })).toBe(true);
    expect(verify(oldSecret, raw, { "x-signature": after.signature })).toBe(false);
  });
});

describe("the Node Standard Webhooks snippet, against our signer", () => {
  const verify = nodeSnippet("standardWebhooks");
  const secret = `whsec_${crypto.randomBytes(32).toString("base64")}`;
  const now = () => Math.floor(Date.now() / 1000);
  const signed = (s: string, timestampSeconds = now()) =>
    standardWebhooksHeaders({ secret: s, id: "msg_0a6b1d62-3f2c-4d7e-9f59-2f1c3a4b5c6d", timestampSeconds, body });

  it("accepts webhook-id.webhook-timestamp.body as signed, and refuses a changed body, id or another secret", () => {
    expect(verify(secret, raw, signed(secret))).toBe(true);
    expect(verify(secret, Buffer.from(body.replace("42.5", "42.6")), signed(secret))).toBe(false);
    expect(verify(secret, raw, { ...signed(secret), "webhook-id": "msg_other" })).toBe(false);
    expect(verify(`whsec_${crypto.randomBytes(32).toString("base64")}`, raw, signed(secret))).toBe(false);
  });

  it("refuses a stale, future or unreadable timestamp", () => {
    expect(verify(secret, raw, signed(secret, now() - 301))).toBe(false);
    expect(verify(secret, raw, signed(secret, now() + 301))).toBe(false);
    const h = signed(secret);
    expect(verify(secret, raw, { ...h, "webhook-timestamp": "soon" })).toBe(false);
    expect(verify(secret, raw, { ...h, "webhook-timestamp": undefined })).toBe(false);
  });

  it("takes a secret whose base64 has no padding", () => {
    const unpadded = `whsec_${crypto.randomBytes(25).toString("base64").replace(/=+$/, "")}`;
    expect(verify(unpadded, raw, signed(unpadded))).toBe(true);
  });

  it("accepts either secret during a rotation (two v1 entries), only the new one after", () => {
    const oldSecret = `whsec_${crypto.randomBytes(32).toString("base64")}`;
    const ts = now();
    const id = "msg_rotation";
    const both = standardSignatures(standardKey(secret), standardKey(oldSecret), id, ts, body);
    const headers = { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": both };
    expect(both.split(" ")).toHaveLength(2);
    expect(verify(oldSecret, raw, headers)).toBe(true);
    expect(verify(secret, raw, headers)).toBe(true);
    const after = { ...headers, "webhook-signature": standardSignatures(standardKey(secret), null, id, ts, body) };
    expect(verify(oldSecret, raw, after)).toBe(false);
  });
});
