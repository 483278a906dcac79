import "server-only";
import crypto from "node:crypto";
import { WHSEC } from "./rules";

/** The seed's X-Signature: lowercase hex HMAC-SHA1 with the shared secret over exactly the body bytes (UTF-8). */
export function xSignature(secret: string, body: string): string {
  return crypto.createHmac("sha1", secret).update(body, "utf8").digest("hex");
}

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
  const key = Buffer.from(opts.secret.slice(WHSEC.length), "base64");
  const signed = `${opts.id}.${opts.timestampSeconds}.${opts.body}`;
  const signature = crypto.createHmac("sha256", key).update(signed, "utf8").digest("base64");
  return { "webhook-id": opts.id, "webhook-timestamp": String(opts.timestampSeconds), "webhook-signature": `v1,${signature}` };
}
