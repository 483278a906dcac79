/**
 * What bench:record-cost and bench:attempt-indexes record: a bench:deliver-like message, and a loaded
 * delivery's first attempt with its request built and signed, answered 200 "ok" in 2 ms. Imported
 * dynamically by them, after they set DATABASE_URL, like the lib modules they measure.
 */
import { toAttemptRow } from "../../lib/delivery/attempt-row";
import type { LoadedDelivery } from "../../lib/delivery/load";
import type { AttemptRow } from "../../lib/delivery/record";
import { classifyAttempt } from "../../lib/webhooks/outcome";
import { buildRequest, webhookIdOf } from "../../lib/webhooks/request";

/** The i-th message; without a messageId, seedMessages makes a random one. */
export const orderCompleted = (i: number, messageId?: string) => ({
  type: "track",
  ...(messageId === undefined ? {} : { messageId }),
  userId: `user-${i % 5000}`,
  anonymousId: `anon-${i % 7000}`,
  event: "Order Completed",
  properties: { orderId: `ord-${i}`, revenue: 19.99 + (i % 100), currency: "EUR", items: [{ sku: `SKU-${i % 300}`, qty: 1 }] },
  context: { ip: "203.0.113.7", library: { name: "analytics-node", version: "6.2.0" }, locale: "de-DE" },
});

const result = { kind: "response" as const, status: 200, headers: { "content-type": "text/plain", "content-length": "2" }, body: "ok" };

export function answeredAttempt(d: LoadedDelivery, now: Date): AttemptRow {
  return toAttemptRow({
    workspaceId: d.workspaceId,
    deliveryId: d.id,
    destinationId: d.destinationId,
    messageRowId: d.messageRowId,
    message: d.message,
    url: d.destination.urls[0],
    attemptNumber: 1,
    request: buildRequest(d.destination, d.message, { now, webhookId: webhookIdOf(d.messageRowId) }),
    attempt: { startedAt: now, durationMs: 2, result },
    classification: classifyAttempt(result),
    outcome: "success",
    nextRetryAt: null,
  });
}
