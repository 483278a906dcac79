import "server-only";
import crypto from "node:crypto";
import type { Verdict } from "./contract";

/**
 * Signature checks for captured requests, run on the server against a destination's secrets
 * (docs/dashboard.md#capture-urls), over the body bytes exactly as received. A verdict never carries
 * the expected digest: capture URLs are public, so that would sign any body an attacker sends.
 */
export type { Verdict };

/** Constant-time comparison of two digests as sent (a wrong guess learns nothing from timing). */
function sameDigest(expected: string, sent: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(sent);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

const header = (headers: Record<string, string>, name: string) => headers[name.toLowerCase()];

/**
 * `previousSecret`: a rotation's old secret while its grace period lasts (docs/signing.md#secret-rotation):
 * requests then carry its signature too, and either secret's match is valid.
 */
type Check = {
  headers: Record<string, string>;
  body: Uint8Array;
  truncated: boolean;
  secret: string | null;
  previousSecret?: string | null;
};

/**
 * `X-Signature`: lowercase hex HMAC-SHA1(secret, body); during a rotation X-Signature-Next carries the
 * new secret's, and a match of either secret in either header is valid.
 */
export function verifyXSignature(opts: Check): Verdict {
  const sent = header(opts.headers, "x-signature");
  if (!sent) return { state: "absent", detail: "No X-Signature header (the sender has no shared secret)" };
  if (opts.truncated) return { state: "unverifiable", detail: "The body was truncated, so the signature cannot be checked" };
  if (!opts.secret) return { state: "unverifiable", detail: "The destination has no shared secret to check against" };
  const digests = [sent, header(opts.headers, "x-signature-next")].filter((d): d is string => !!d).map((d) => d.trim());
  const matchesWith = (s: string | null | undefined) => {
    if (!s) return false;
    const expected = crypto.createHmac("sha1", s).update(opts.body).digest("hex");
    return digests.some((d) => sameDigest(expected, d));
  };
  // Which secret matched, during a rotation (docs/signing.md#secret-rotation).
  if (matchesWith(opts.secret)) return { state: "valid", detail: "HMAC-SHA1 of the body matches the destination's current shared secret" };
  if (matchesWith(opts.previousSecret))
    return {
      state: "valid",
      detail: "HMAC-SHA1 of the body matches the destination's previous shared secret, still signing during its rotation",
    };
  return { state: "invalid", detail: "Does not match the destination's shared secret: another secret, or the body changed on the way" };
}

/** Standard Webhooks: base64 HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${body}` with the whsec_ key. */
export function verifyStandardWebhook(opts: Check): Verdict {
  const id = header(opts.headers, "webhook-id");
  const ts = header(opts.headers, "webhook-timestamp");
  const sig = header(opts.headers, "webhook-signature");
  if (!id && !ts && !sig) return { state: "absent", detail: "No Standard Webhooks headers" };
  if (!id || !ts || !sig) return { state: "invalid", detail: "webhook-id, webhook-timestamp and webhook-signature must all be present" };
  if (opts.truncated) return { state: "unverifiable", detail: "The body was truncated, so the signature cannot be checked" };
  if (!opts.secret) return { state: "unverifiable", detail: "The destination has no Standard Webhooks secret to check against" };
  const keys = [opts.secret, opts.previousSecret].filter((s): s is string => !!s).map((s) => s.replace(/^whsec_/, ""));
  if (!keys.every((b64) => /^[A-Za-z0-9+/]+={0,2}$/.test(b64)))
    return { state: "unverifiable", detail: "The destination's secret is not valid base64 (whsec_…)" };
  const candidates = sig
    .split(" ")
    .map((s) => s.split(","))
    .filter(([v]) => v === "v1")
    .map(([, s]) => s ?? "");
  const matches = (b64: string | undefined) => {
    if (!b64) return false;
    const e = crypto.createHmac("sha256", Buffer.from(b64, "base64")).update(`${id}.${ts}.`).update(opts.body).digest("base64");
    return candidates.some((c) => sameDigest(e, c));
  };
  // Which secret matched, during a rotation (docs/signing.md#secret-rotation).
  if (matches(keys[0])) return { state: "valid", detail: "v1 signature matches the destination's current secret" };
  if (matches(keys[1]))
    return { state: "valid", detail: "v1 signature matches the destination's previous secret, still signing during its rotation" };
  return { state: "invalid", detail: "No v1 signature matches the destination's secret" };
}
