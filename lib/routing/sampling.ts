import "server-only";
import { createHash } from "node:crypto";

/**
 * Sampling (docs/routing.md#sampling): a destination may take N % of the calls its filter passes,
 * chosen by the call's messageId alone, so the same call is chosen again whenever it is routed again
 * (a client's retry to another source, a replay, a backfill), and every destination sampling at the
 * same rate takes the same calls.
 */

/** Where a messageId falls in [0, 10000): the first 4 bytes of its SHA-256, scaled. */
export function sampleBucket(messageId: string): number {
  const h = createHash("sha256").update(messageId).digest();
  return Math.floor((h.readUInt32BE(0) / 0x1_0000_0000) * 10_000);
}

/** Whether a call is among the `percent` % sampled in (percent in (0, 100], steps of 0.01). */
export const sampledIn = (messageId: string, percent: number): boolean =>
  percent >= 100 || sampleBucket(messageId) < Math.round(percent * 100);
