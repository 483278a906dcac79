import "server-only";
import { isoTime } from "../platform/iso-time";
import type { TimedAttempt } from "../webhooks/post";
import type { Classification } from "../webhooks/outcome";
import type { OutgoingRequest } from "../webhooks/request";
import type { StoredMessage } from "../webhooks/payload";
import { pgSafe, type AttemptRow } from "./record";

/** The headers as received, unless one holds a NUL (rare): no copy per attempt in the common case. */
function safeHeaders(h: Record<string, string>): Record<string, string> {
  for (const k in h) {
    if (k.includes("\0") || h[k].includes("\0")) {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(h)) out[pgSafe(name)] = pgSafe(value);
      return out;
    }
  }
  return h;
}

/** The attempt log row for one HTTP attempt: request headers masked, response as received (body already capped). */
export function toAttemptRow(opts: {
  workspaceId: string;
  deliveryId: string;
  destinationId: string;
  messageRowId: string;
  message: Pick<StoredMessage, "messageId" | "type" | "userId">;
  url: string;
  /** where the request went when not `url` itself: a URL template rendered for this call (docs/request-shape.md#url-templates) */
  sentTo?: string | null;
  /** the request's method (docs/request-shape.md#method); logged only when it is not POST */
  method?: string;
  /** the round's number (column attempt_number): every request of one round shares it */
  attemptNumber: number;
  request: OutgoingRequest;
  attempt: TimedAttempt;
  classification: Classification;
  outcome: string;
  nextRetryAt: Date | null;
  /** a batch's attempt (lib/delivery/batches.ts): logged once, on its lead, with no one user's id */
  batchId?: string | null;
}): AttemptRow {
  const { attempt: a, classification: c } = opts;
  const response = a.result.kind === "response" ? a.result : null;
  return {
    workspace_id: opts.workspaceId,
    delivery_id: opts.deliveryId,
    destination_id: opts.destinationId,
    message_row_id: opts.messageRowId,
    message_id: opts.message.messageId,
    type: opts.message.type,
    user_id: opts.batchId ? null : opts.message.userId,
    url: opts.url,
    sent_to: opts.sentTo ?? null,
    method: opts.method && opts.method !== "POST" ? opts.method : null,
    attempt_number: opts.attemptNumber,
    started_at: isoTime(a.startedAt),
    duration_ms: a.durationMs,
    request_headers: opts.request.loggedHeaders,
    request_body: opts.request.body,
    response_status: response?.status ?? null,
    response_headers: response ? safeHeaders(response.headers) : null,
    response_body: response ? pgSafe(response.body) : null,
    error_kind: c.errorKind,
    error_text: c.errorText === null ? null : pgSafe(c.errorText),
    outcome: opts.outcome,
    next_retry_at: opts.outcome === "retry" && opts.nextRetryAt ? isoTime(opts.nextRetryAt) : null,
    batch_id: opts.batchId ?? null,
  };
}
