/**
 * Delivers one batch: attempts, backoff between them, and the reading of the answer. Never throws;
 * every ending is an outcome the client turns into events.
 */
import { batchBody } from "./batches";
import type { QueuedMessage } from "./message";
import { classifyStatus, parseRetryAfter, retryDelay, type BackoffOptions } from "./retry";
import type { HttpResponse, Transport } from "./transport";
import type { FailureEvent, Rejection } from "./types";

export type BatchFailure = { code: FailureEvent["code"]; error: Error; messages: QueuedMessage[]; rejections?: Rejection[] };

export type BatchOutcome = {
  attempts: number;
  status?: number;
  bytes: number;
  accepted: QueuedMessage[];
  failure?: BatchFailure;
};

export type SendDeps = {
  transport: Transport;
  maxRetries: number;
  backoff: BackoffOptions;
  sleep: (ms: number) => Promise<void>;
  log?: (line: string) => void;
  label: string;
};

type ServerReply = { rejected?: unknown; error?: unknown; message?: unknown };

function parseReply(body: string): ServerReply | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null ? (parsed as ServerReply) : undefined;
  } catch {
    return undefined;
  }
}

/** `HTTP 400: <the server's error message>`, or a snippet of a body that is not our JSON error shape. */
export function describeHttpError(response: HttpResponse): string {
  const reply = parseReply(response.body);
  const error = reply?.error;
  const message =
    typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string"
      ? (error as { message: string }).message
      : typeof error === "string"
        ? error
        : typeof reply?.message === "string"
          ? reply.message
          : response.body.slice(0, 200);
  return `HTTP ${response.status}${message ? `: ${message}` : ""}`;
}

/**
 * Splits an acknowledged batch into kept and refused messages using the server's
 * `rejected: [{index, messageId, reason}]`; the messageId wins when it disagrees with the index.
 */
export function splitRejections(
  messages: QueuedMessage[],
  body: string,
): { accepted: QueuedMessage[]; rejected: QueuedMessage[]; rejections: Rejection[] } {
  const listed = body.includes('"rejected"') ? parseReply(body)?.rejected : undefined;
  if (!Array.isArray(listed) || listed.length === 0) return { accepted: messages, rejected: [], rejections: [] };
  const reasons = new Map<QueuedMessage, string>();
  for (const item of listed as Array<{ index?: unknown; messageId?: unknown; reason?: unknown }>) {
    const byIndex = typeof item.index === "number" ? messages[item.index] : undefined;
    const message =
      byIndex && (item.messageId == null || byIndex.messageId === item.messageId)
        ? byIndex
        : messages.find((m) => m.messageId === item.messageId);
    if (message) reasons.set(message, typeof item.reason === "string" ? item.reason : "rejected");
  }
  const accepted = messages.filter((m) => !reasons.has(m));
  const rejected = messages.filter((m) => reasons.has(m));
  return { accepted, rejected, rejections: rejected.map((m) => ({ messageId: m.messageId, reason: reasons.get(m)! })) };
}

function bodyBytes(messages: QueuedMessage[]): number {
  let bytes = '{"batch":[],"sentAt":""}'.length + 24 + Math.max(0, messages.length - 1);
  for (const m of messages) bytes += m.bytes;
  return bytes;
}

export async function sendBatch(messages: QueuedMessage[], deps: SendDeps): Promise<BatchOutcome> {
  const bytes = bodyBytes(messages);
  for (let attempt = 1; ; attempt++) {
    // sentAt is restamped per attempt: the server corrects clock skew with it, so it must be the real send time.
    const body = batchBody(messages, new Date().toISOString());
    let response: HttpResponse | undefined;
    let networkError: Error | undefined;
    try {
      response = await deps.transport.post(body);
    } catch (err) {
      networkError = err as Error;
    }
    const verdict = response ? classifyStatus(response.status) : "retry";
    if (verdict === "ok") {
      const { accepted, rejected, rejections } = splitRejections(messages, response!.body);
      if (rejected.length === 0) return { attempts: attempt, status: response!.status, bytes, accepted };
      const error = new Error(
        `${rejected.length} of ${messages.length} messages rejected by the server: ${rejections.map((r) => r.reason).join("; ")}`,
      );
      return {
        attempts: attempt,
        status: response!.status,
        bytes,
        accepted,
        failure: { code: "rejected", error, messages: rejected, rejections },
      };
    }
    const why = response ? describeHttpError(response) : `network error: ${networkError!.message}`;
    if (verdict === "fail")
      return {
        attempts: attempt,
        status: response!.status,
        bytes,
        accepted: [],
        failure: { code: "http_error", error: new Error(why), messages },
      };
    if (attempt > deps.maxRetries) {
      const error = new Error(`gave up after ${attempt} attempts: ${why}`);
      return { attempts: attempt, status: response?.status, bytes, accepted: [], failure: { code: "retries_exhausted", error, messages } };
    }
    const delay = retryDelay(attempt, parseRetryAfter(response?.retryAfter, Date.now()), deps.backoff);
    deps.log?.(`retrying ${deps.label} in ${delay} ms after attempt ${attempt} (${why})`);
    await deps.sleep(delay);
  }
}
