import "server-only";
import crypto from "node:crypto";
import { withTransaction } from "../platform/db";
import { requestDeliveries } from "../delivery/enqueue";
import { processDeliveryBatch } from "../delivery/process";
import { listMessageAttempts } from "../request-log/attempts";
import { insertMessage } from "../tracking/produce";
import { filterVerdict } from "../routing/destination-filter";
import { samplePayload } from "./samples";
import type { TestSendInput, TestSendResult } from "./contract";
import { loadSigningSettings } from "./destinations";

/**
 * "Send test": one sample message of a type, stored as a message of origin "test" with a delivery
 * to the destination's URLs (or only `url`), then delivered at once, in this process, by the
 * delivery engine's own round (lib/delivery/process.ts): the same limiter, outcome rules and
 * attempt log as every delivery. The delivery keeps its URLs (target_urls), so a replay of the
 * test goes only where the test went; a test is never retried. The destination's filter does not
 * stop it; the result says whether it would stop a real call like it.
 */
export async function sendTestMessage(opts: { workspaceId: string; destinationId: string; input: TestSendInput }): Promise<TestSendResult> {
  const dest = await loadSigningSettings({ workspaceId: opts.workspaceId, id: opts.destinationId });
  const { type } = opts.input;
  const payload: Record<string, unknown> = { ...samplePayload(type), ...opts.input.payload, type };
  const now = new Date();
  const messageId = typeof payload.messageId === "string" ? payload.messageId : `test-${crypto.randomUUID()}`;
  const urls = opts.input.url ? [opts.input.url] : dest.urls;

  const { messageRowId, deliveryId } = await withTransaction(async (client) => {
    const messageRowId = await insertMessage(client, {
      workspaceId: opts.workspaceId,
      sourceId: null,
      origin: "test",
      messageId,
      type,
      userId: typeof payload.userId === "string" ? payload.userId : null,
      anonymousId: typeof payload.anonymousId === "string" ? payload.anonymousId : null,
      event: typeof payload.event === "string" ? payload.event : null,
      timestamp: now,
      sentAt: now,
      receivedAt: now,
      payload: { ...payload, messageId },
    });
    // No job: it is processed here and now (below).
    const [deliveryId] = await requestDeliveries(
      client,
      [{ workspaceId: opts.workspaceId, messageRowId, destinationId: dest.id, targetUrls: urls }],
      { enqueue: false },
    );
    return { messageRowId, deliveryId };
  });
  // Recorded before it returns; a round the limiter defers is taken up by the worker (its retry job).
  await processDeliveryBatch({ deliveryIds: [deliveryId], waitForAll: true });
  // A test is sent whatever the filter says (it tests the endpoint), and says when real calls like it would not be.
  // Delete notices follow the deletion rule, not filters (docs/routing.md#destination-filters).
  const verdict =
    type === "delete"
      ? ({ passes: true } as const)
      : filterVerdict(dest.filter, { type, event: typeof payload.event === "string" ? payload.event : null, payload });
  return {
    attempts: await listMessageAttempts({ workspaceId: opts.workspaceId, messageRowId, deliveryId }),
    filter: { passes: verdict.passes, reason: verdict.passes ? null : verdict.reason },
  };
}
