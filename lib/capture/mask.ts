import "server-only";
import { isReservedHeader } from "../webhooks/rules";

/**
 * A captured request's headers as a member who may not reveal write-only values sees them
 * (docs/dashboard.md#roles-in-the-dashboard): a destination's custom headers (`Authorization: Bearer …`)
 * arrive here in full, and reveal answers those members 403, so this view must not hand them out
 * either. Eventrail's own headers (signatures, ids, content type) and a few standard ones that carry
 * no credential stay readable; every other value is masked, whoever sent it.
 */
const READABLE = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "connection",
  "content-encoding",
  "origin",
  "referer",
  "traceparent",
  "transfer-encoding",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "via",
]);

export const MASK = "••••";

/** As the attempt log masks (lib/webhooks/request.ts): a long token keeps its last 4 characters. */
const maskValue = (v: string) => (v.length < 20 ? MASK : `${MASK}${v.slice(-4)}`);

export const isReadableHeader = (name: string) => isReservedHeader(name) || READABLE.has(name.trim().toLowerCase());

export function maskCapturedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isReadableHeader(name) ? value : maskValue(value);
  return out;
}
