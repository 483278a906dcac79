import "server-only";

/**
 * Whether the browser reached us over https (docs/management-api.md#sessions): the public URL is
 * https (a TLS-terminating proxy may still talk plain http to us), or the request itself came over
 * https, directly or as the proxy's X-Forwarded-Proto says. A client that lies about it only gets
 * Secure cookies and HSTS it cannot use over plain http: the lie cannot weaken anything.
 */
export function isHttpsRequest(opts: { publicUrl?: string; requestUrl: string; forwardedProto: string | null }): boolean {
  if (opts.publicUrl?.toLowerCase().startsWith("https:")) return true;
  if (new URL(opts.requestUrl).protocol === "https:") return true;
  return opts.forwardedProto?.split(",")[0]?.trim().toLowerCase() === "https";
}

/** A fresh CSP nonce per page view: 128 random bits. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/**
 * The headers every dashboard and auth page is sent with (docs/dashboard.md#security-headers). Scripts
 * run only with this response's nonce (Next puts it on its own scripts, read from the request's CSP)
 * and what they load ('strict-dynamic'); styles may be inline (React renders style attributes, which
 * nonces cannot cover, and a style cannot run code); nothing may frame the page. The Tracking API,
 * the capture receiver and the Management API answer JSON and get none of this.
 */
export function pageSecurityHeaders(opts: { nonce: string; https: boolean; dev?: boolean }): Record<string, string> {
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${opts.nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
  return {
    "content-security-policy": csp,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    ...(opts.https ? { "strict-transport-security": "max-age=31536000" } : {}),
  };
}
