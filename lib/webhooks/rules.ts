/**
 * Validation rules shared by the API and the dashboard form. Browser-safe: no Node built-ins,
 * so the destination schema can run in the browser without pulling node:crypto into the bundle.
 */

/** Header names a customer may not set: ours, or ones that would break the request. Lowercase. */
export const RESERVED_HEADERS = [
  "content-type",
  "user-agent",
  "x-signature",
  // the new shared secret's signature during a rotation's grace period (docs/signing.md#secret-rotation)
  "x-signature-next",
  "content-length",
  "host",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
] as const;

export const isReservedHeader = (name: string) => (RESERVED_HEADERS as readonly string[]).includes(name.trim().toLowerCase());

/**
 * Connection-level headers (RFC 9110 §7.6.1, RFC 9112 §6–7) and ones that describe a body we do not
 * send: the HTTP client owns them, and set by hand they make every delivery fail as a connection
 * error, or are silently dropped, or lie about the body. Lowercase.
 */
export const CONNECTION_HEADERS = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
  "content-encoding",
  "http2-settings",
] as const;

export const isConnectionHeader = (name: string) => (CONNECTION_HEADERS as readonly string[]).includes(name.trim().toLowerCase());

/** RFC 9110 §5.6.2 token characters: what a header name may be made of. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Visible ASCII, space and tab (RFC 9110 §5.5 without obs-text): no control characters, no ☃, no U+2028. */
export const isHeaderValue = (value: string) => /^[\x20-\x7e\t]*$/.test(value);

/**
 * Whether a stored header can go out as it is. Validation refuses the rest; this keeps rows saved
 * before those rules (or written around the API) from breaking or hijacking a delivery.
 */
export const isSendableHeader = (h: { name: string; value: string }) =>
  HEADER_NAME.test(h.name) && !isReservedHeader(h.name) && !isConnectionHeader(h.name) && isHeaderValue(h.value);

export const WHSEC = "whsec_";

/** True for `whsec_<base64>` whose key is at least 24 bytes (the spec's lower bound). */
export function isStandardSecret(secret: string): boolean {
  if (!secret.startsWith(WHSEC)) return false;
  const b64 = secret.slice(WHSEC.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return false;
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding >= 24;
}
