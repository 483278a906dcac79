import "server-only";
import crypto from "node:crypto";
import { WHSEC } from "./rules";

/** The seed's X-Signature: lowercase hex HMAC-SHA1 with the shared secret over exactly the body bytes (UTF-8). */
export function xSignature(secret: string | crypto.KeyObject, body: string): string {
  return crypto.createHmac("sha1", secret).update(body, "utf8").digest("hex");
}

/**
 * A secret as the HMAC key object its signatures are made with, for a destination's many requests:
 * the shared secret's UTF-8 bytes, a Standard Webhooks secret's decoded key (docs/webhooks.md#delivery-cost).
 */
export const xSignatureKey = (secret: string) => crypto.createSecretKey(Buffer.from(secret, "utf8"));
export const standardKey = (secret: string) => crypto.createSecretKey(Buffer.from(secret.slice(WHSEC.length), "base64"));

/** A new Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateStandardSecret(): string {
  return WHSEC + crypto.randomBytes(32).toString("base64");
}

/**
 * Standard Webhooks headers (standardwebhooks.com): webhook-id, webhook-timestamp (seconds) and
 * webhook-signature `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>` where key is the decoded secret.
 */
export function standardWebhooksHeaders(opts: {
  secret: string;
  id: string;
  timestampSeconds: number;
  body: string;
}): Record<string, string> {
  return {
    "webhook-id": opts.id,
    "webhook-timestamp": String(opts.timestampSeconds),
    "webhook-signature": standardSignature(standardKey(opts.secret), opts.id, opts.timestampSeconds, opts.body),
  };
}

/**
 * The webhook-signature header's value, with the secret's key (standardKey). During a rotation's
 * grace period the previous secret signs too: `v1,<new> v1,<old>`, new first, space-separated as the
 * spec allows, so a receiver holding either secret verifies (docs/signing.md#secret-rotation).
 */
export function standardSignatures(
  key: crypto.KeyObject,
  previous: crypto.KeyObject | null,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const current = standardSignature(key, id, timestampSeconds, body);
  return previous ? `${current} ${standardSignature(previous, id, timestampSeconds, body)}` : current;
}

/**
 * X-Signature during a shared secret's grace period (docs/signing.md#secret-rotation): X-Signature
 * stays the previous secret's, so receivers that have not switched yet keep verifying, and
 * X-Signature-Next carries the new one's. Without a previous secret, X-Signature is the new one's and
 * there is no X-Signature-Next: a receiver holding the new secret accepts a request when its digest
 * equals either header, before, during and after the grace period alike.
 */
export function xSignatures(
  key: crypto.KeyObject,
  previous: crypto.KeyObject | null,
  body: string,
): { signature: string; next: string | null } {
  const current = xSignature(key, body);
  return previous ? { signature: xSignature(previous, body), next: current } : { signature: current, next: null };
}

/** The webhook-signature header's value, with the secret's key (standardKey). */
export function standardSignature(key: crypto.KeyObject, id: string, timestampSeconds: number, body: string): string {
  return `v1,${crypto.createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`, "utf8").digest("base64")}`;
}
