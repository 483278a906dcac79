import "server-only";
import { setMaxListeners } from "node:events";
import { request } from "undici";
import { dispatcherFor } from "./dispatchers";
import { errorKindOf, type AttemptResult } from "./outcome";
import type { OutgoingRequest } from "./request";

/** docs/webhooks.md#outcomes: the whole exchange, connect to last byte, must finish within 5 s. */
export const ATTEMPT_TIMEOUT_MS = 5_000;
/** The attempt log keeps the first 64 KB of a response body. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;

/**
 * Requests starting within the same 50 ms share one deadline signal (each gets 5.00–5.05 s): a timer
 * and an AbortSignal per request cost more CPU than the rest of the attempt's bookkeeping.
 */
const BUCKET_MS = 50;
const deadlines = new Map<number, AbortSignal>();

function deadlineSignal(): AbortSignal {
  const now = Date.now();
  const bucket = Math.ceil(now / BUCKET_MS) * BUCKET_MS;
  let signal = deadlines.get(bucket);
  if (!signal) {
    signal = AbortSignal.timeout(bucket + ATTEMPT_TIMEOUT_MS - now);
    setMaxListeners(0, signal);
    deadlines.set(bucket, signal);
    setTimeout(() => deadlines.delete(bucket), bucket - now + BUCKET_MS).unref();
  }
  return signal;
}

export type TimedAttempt = { startedAt: Date; durationMs: number; result: AttemptResult };

/** One POST of a prepared request to one URL, over the process's keep-alive pools. Never throws. */
export async function postWebhook(url: string, req: OutgoingRequest): Promise<TimedAttempt> {
  const startedAt = new Date();
  const t0 = performance.now();
  const result = await exchange(url, req);
  return { startedAt, durationMs: Math.round(performance.now() - t0), result };
}

async function exchange(rawUrl: string, req: OutgoingRequest): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { kind: "error", errorKind: "internal", message: "invalid URL" };
  }
  const target = dispatcherFor(url);
  if ("refused" in target) return { kind: "error", errorKind: "ssrf", message: `refused: ${target.refused}` };

  const signal = deadlineSignal();
  try {
    const res = await request(url, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      dispatcher: target.dispatcher,
      signal,
      // undici never follows redirects unless told to: a 3xx is an answer, not a hop (docs/webhooks.md#outcomes).
      headersTimeout: ATTEMPT_TIMEOUT_MS,
      bodyTimeout: ATTEMPT_TIMEOUT_MS,
    });
    const body = await readCapped(res.body, RESPONSE_BODY_LIMIT);
    return { kind: "response", status: res.statusCode, headers: flattenHeaders(res.headers), body };
  } catch (err) {
    const kind = signal.aborted ? "timeout" : errorKindOf(err);
    return { kind: "error", errorKind: kind, message: describeError(err, kind) };
  }
}

/** Keeps the first `limit` bytes and drains the rest, so the connection stays reusable. */
async function readCapped(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body) {
    if (kept < limit) {
      const part = chunk.subarray(0, limit - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function describeError(err: unknown, kind: string): string {
  if (kind === "timeout") return `no complete response within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const e = err as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.cause?.message && e.message === "fetch failed" ? e.cause.message : (e?.message ?? String(err));
  if (kind === "tls") return `TLS: ${message}${code && !message.includes(code) ? ` (${code})` : ""}; no request was sent`;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
