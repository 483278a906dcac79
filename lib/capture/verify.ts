/**
 * Signature checks for captured requests, with WebCrypto only, so the same code runs in the
 * browser (the capture page verifies against a secret the user types, which never leaves it)
 * and in unit tests.
 */
export type Verdict = { state: "valid" | "invalid" | "absent" | "unverifiable"; detail: string };

const enc = new TextEncoder();

const toHex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");

function toBase64(buf: ArrayBuffer): string {
  let s = "";
  for (const b of new Uint8Array(buf)) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(b64: string): Uint8Array<ArrayBuffer> | null {
  try {
    const s = atob(b64);
    const out = new Uint8Array(new ArrayBuffer(s.length));
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

async function hmac(hash: "SHA-1" | "SHA-256", key: Uint8Array<ArrayBuffer>, data: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, enc.encode(data));
}

const header = (headers: Record<string, string>, name: string) => headers[name.toLowerCase()];

/** `X-Signature`: lowercase hex HMAC-SHA1(secret, body). */
export async function verifyXSignature(opts: { headers: Record<string, string>; body: string; truncated: boolean; secret: string }): Promise<Verdict> {
  const sent = header(opts.headers, "x-signature");
  if (!sent) return { state: "absent", detail: "No X-Signature header (the destination has no shared secret)" };
  if (opts.truncated) return { state: "unverifiable", detail: "The body was truncated, so the signature cannot be checked" };
  if (!opts.secret) return { state: "unverifiable", detail: "Enter the shared secret to verify" };
  const expected = toHex(await hmac("SHA-1", enc.encode(opts.secret), opts.body));
  return expected === sent.trim()
    ? { state: "valid", detail: "HMAC-SHA1 of the body matches" }
    : { state: "invalid", detail: `Expected ${expected}` };
}

/** Standard Webhooks: base64 HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${body}` with the whsec_ key. */
export async function verifyStandardWebhook(opts: { headers: Record<string, string>; body: string; truncated: boolean; secret: string }): Promise<Verdict> {
  const id = header(opts.headers, "webhook-id");
  const ts = header(opts.headers, "webhook-timestamp");
  const sig = header(opts.headers, "webhook-signature");
  if (!id && !ts && !sig) return { state: "absent", detail: "No Standard Webhooks headers" };
  if (!id || !ts || !sig) return { state: "invalid", detail: "webhook-id, webhook-timestamp and webhook-signature must all be present" };
  if (opts.truncated) return { state: "unverifiable", detail: "The body was truncated, so the signature cannot be checked" };
  if (!opts.secret) return { state: "unverifiable", detail: "Enter the whsec_ secret to verify" };
  const key = fromBase64(opts.secret.trim().replace(/^whsec_/, ""));
  if (!key || key.length === 0) return { state: "unverifiable", detail: "The secret is not valid base64 (whsec_…)" };
  const expected = toBase64(await hmac("SHA-256", key, `${id}.${ts}.${opts.body}`));
  const candidates = sig.split(" ").map((s) => s.split(",")).filter(([v]) => v === "v1").map(([, s]) => s);
  return candidates.includes(expected)
    ? { state: "valid", detail: "v1 signature matches" }
    : { state: "invalid", detail: `Expected v1,${expected}` };
}
