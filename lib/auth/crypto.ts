import "server-only";
import crypto from "node:crypto";

export const sha256 = (value: string) => crypto.createHash("sha256").update(value).digest("hex");

/** URL-safe random token with a recognisable prefix (e.g. `er_` for API tokens). */
export const randomToken = (prefix = "", bytes = 32) => prefix + crypto.randomBytes(bytes).toString("base64url");

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}
