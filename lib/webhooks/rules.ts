/**
 * Validation rules shared by the API and the dashboard form. Browser-safe: no Node built-ins,
 * so the destination schema can run in the browser without pulling node:crypto into the bundle.
 */

/** Header names a customer may not set: ours, or ones that would break the request. Lowercase. */
export const RESERVED_HEADERS = [
  "content-type",
  "user-agent",
  "x-signature",
  "content-length",
  "host",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
] as const;

export const isReservedHeader = (name: string) => (RESERVED_HEADERS as readonly string[]).includes(name.trim().toLowerCase());

export const WHSEC = "whsec_";

/** True for `whsec_<base64>` whose key is at least 24 bytes (the spec's lower bound). */
export function isStandardSecret(secret: string): boolean {
  if (!secret.startsWith(WHSEC)) return false;
  const b64 = secret.slice(WHSEC.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return false;
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding >= 24;
}
