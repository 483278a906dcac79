import "server-only";
import crypto from "node:crypto";
import { pool, withTransaction } from "../platform/db";
import { toAttemptRow } from "../delivery/attempt-row";
import { listMessageAttempts } from "../request-log/attempts";
import { recordRound } from "../delivery/record";
import { postWebhook } from "../webhooks/post";
import { classifyAttempt } from "../webhooks/outcome";
import type { StoredMessage } from "../webhooks/payload";
import { buildRequest, webhookIdOf } from "../webhooks/request";
import { filterVerdict } from "../routing/destination-filter";
import { samplePayload } from "./samples";
import type { TestSendInput, TestSendResult } from "./contract";
import { loadSigningSettings } from "./destinations";

/**
 * "Send test": one sample message of a type, sent now from this process to the destination's URLs
 * (or only `url`), signed like real deliveries. It is stored as a message of origin "test" with a
 * delivery, so its attempts sit in the attempt log like any other; it is never retried. The
 * destination's filter does not stop it; the result says whether it would stop a real call like it.
 */
export async function sendTestMessage(opts: { workspaceId: string; destinationId: string; input: TestSendInput }): Promise<TestSendResult> {
  const dest = await loadSigningSettings({ workspaceId: opts.workspaceId, id: opts.destinationId });
  const { type } = opts.input;
  const payload: Record<string, unknown> = { ...samplePayload(type), ...opts.input.payload, type };
  const now = new Date();
  const messageId = typeof payload.messageId === "string" ? payload.messageId : `test-${crypto.randomUUID()}`;
  const message: StoredMessage = {
    type,
    messageId,
    userId: typeof payload.userId === "string" ? payload.userId : null,
    anonymousId: typeof payload.anonymousId === "string" ? payload.anonymousId : null,
    timestamp: now.toISOString(),
    receivedAt: now.toISOString(),
    sentAt: now.toISOString(),
    // Round-tripped through JSON, as jsonb would: what is sent is what the message row holds.
    payload: JSON.parse(JSON.stringify({ ...payload, messageId })),
  };

  const { messageRowId, deliveryId } = await withTransaction(async (client) => {
    const m = await client.query<{ id: string }>(
      `INSERT INTO messages (id, workspace_id, source_id, origin, message_id, type, user_id, anonymous_id, event, timestamp, sent_at, received_at, payload)
       VALUES (gen_random_uuid(), $1, NULL, 'test', $2, $3, $4, $5, $6, $7, $7, $7, $8) RETURNING id`,
      [
        opts.workspaceId,
        message.messageId,
        type,
        message.userId,
        message.anonymousId,
        typeof payload.event === "string" ? payload.event : null,
        now,
        message.payload,
      ],
    );
    const d = await client.query<{ id: string }>(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id) VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id`,
      [opts.workspaceId, m.rows[0].id, dest.id],
    );
    return { messageRowId: m.rows[0].id, deliveryId: d.rows[0].id };
  });

  const request = buildRequest(dest, message, { now, webhookId: webhookIdOf(messageRowId) });
  const urls = opts.input.url ? [opts.input.url] : dest.urls;
  const sent = await Promise.all(urls.map(async (url) => ({ url, attempt: await postWebhook(url, request) })));
  const rows = sent.map(({ url, attempt }) => {
    const classification = classifyAttempt(attempt.result);
    return toAttemptRow({
      workspaceId: opts.workspaceId,
      deliveryId,
      destinationId: dest.id,
      messageRowId,
      message,
      url,
      attemptNumber: 1,
      request,
      attempt,
      classification,
      // Test sends are never retried.
      outcome: classification.outcome === "success" ? "success" : "failed",
      nextRetryAt: null,
    });
  });
  const ok = rows.some((r) => r.outcome === "success");
  const firstError = rows.find((r) => r.outcome !== "success");
  await recordRound(pool(), rows, [
    {
      id: deliveryId,
      state: ok ? "delivered" : "failed",
      pending_urls: [],
      attempt_count: 1,
      first_attempt_at: now.toISOString(),
      last_attempt_at: now.toISOString(),
      next_attempt_at: null,
      last_error: ok ? null : (firstError?.error_text ?? null),
      last_status: rows[rows.length - 1]?.response_status ?? null,
      delivered_at: ok ? new Date().toISOString() : null,
    },
  ]);
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
