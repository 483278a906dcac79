import "server-only";
import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header";
import { presentedTls, refused } from "./client-tls-grace";
import { type ClientTls, dispatcherFor } from "./dispatchers";
import { errorKindOf, type AttemptResult } from "./outcome";
import type { OutgoingRequest } from "./request";

/** docs/webhooks.md#outcomes: the whole exchange, connect to last byte, must finish within 5 s. */
export const ATTEMPT_TIMEOUT_MS = 5_000;
/** The attempt log keeps the first 64 KB of a response body. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;

export type TimedAttempt = { startedAt: Date; durationMs: number; result: AttemptResult };

/**
 * One POST (or the destination's PUT / PATCH, docs/request-shape.md#method) of a prepared request to
 * one URL, over the process's keep-alive pools. Never throws.
 */
export async function postWebhook(
  url: string,
  req: Pick<OutgoingRequest, "headers" | "body">,
  method: "POST" | "PUT" | "PATCH" = "POST",
  /** the destination's client certificate (docs/endpoint-auth.md#mutual-tls), if any */
  clientTls: ClientTls | null = null,
): Promise<TimedAttempt> {
  const startedAt = new Date();
  const t0 = performance.now();
  const presented = clientTls ? presentedTls(clientTls) : null;
  let result = await exchange(url, req, method, presented?.tls ?? null);
  // A receiver that refused the certificate: during a rotation's grace, the retry presents the other one.
  if (clientTls && presented && result.kind === "error" && result.clientCertRefused) {
    const next = refused(clientTls, presented);
    if (next) result = { ...result, message: `${result.message}; ${next}` };
  }
  return { startedAt, durationMs: Math.round(performance.now() - t0), result };
}

/** Parsed URLs by their text: a destination's few URLs are parsed once, not once per attempt. */
const parsedUrls = new Map<string, URL | null>();

function parseUrl(raw: string): URL | null {
  let url = parsedUrls.get(raw);
  if (url === undefined) {
    try {
      url = new URL(raw);
    } catch {
      url = null;
    }
    // A bound, not a cache policy: URLs are per destination, a process sees few of them.
    if (parsedUrls.size >= 10_000) parsedUrls.clear();
    parsedUrls.set(raw, url);
  }
  return url;
}

/** The origin a URL's requests count against (lib/delivery/origins.ts); the text itself when it does not parse. */
export const originOf = (raw: string): string => parseUrl(raw)?.origin ?? raw;

function exchange(
  rawUrl: string,
  req: Pick<OutgoingRequest, "headers" | "body">,
  method: string,
  clientTls: ClientTls | null,
): Promise<AttemptResult> {
  const url = parseUrl(rawUrl);
  if (!url) return Promise.resolve({ kind: "error", errorKind: "internal", message: "invalid URL" });
  const target = dispatcherFor(url, clientTls);
  if ("refused" in target) return Promise.resolve({ kind: "error", errorKind: "ssrf", message: `refused: ${target.refused}` });
  return new Promise((resolve) => {
    const handler = new Exchange(resolve, clientTls !== null);
    target.dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method,
        headers: req.headers,
        body: req.body,
        // undici never follows redirects unless told to: a 3xx is an answer, not a hop (docs/webhooks.md#outcomes).
        headersTimeout: ATTEMPT_TIMEOUT_MS,
        bodyTimeout: ATTEMPT_TIMEOUT_MS,
      },
      handler,
    );
  });
}

/**
 * The exchange as undici's dispatch handler sees it (`onRequestStart` … `onResponseEnd`): status,
 * headers and body chunks arrive as callbacks, and the result is resolved once. It is undici's
 * `request()` without the stream, iterator, abort listener and async resource per request that the
 * worker has no use for (docs/webhooks.md#delivery-cost).
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private timedOut = false;
  private settled = false;
  private status = 0;
  private headers: Record<string, string> = {};
  private chunks: Buffer[] = [];
  private kept = 0;
  private readonly deadline: Set<Exchange>;

  constructor(
    private readonly resolve: (r: AttemptResult) => void,
    /** the connection presents a client certificate (docs/endpoint-auth.md#mutual-tls) */
    private readonly clientCert = false,
  ) {
    this.deadline = deadlineBucket();
    this.deadline.add(this);
  }

  /** Called once the 5 s deadline passed: ends the exchange as a timeout, whatever stage it is in. */
  expire(): void {
    if (this.settled) return;
    this.timedOut = true;
    this.controller?.abort(new Error("attempt deadline passed"));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.timedOut) controller.abort(new Error("attempt deadline passed"));
    else this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx are interim answers; the final one follows.
    if (statusCode < 200) return;
    this.status = statusCode;
    const flat: Record<string, string> = {};
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) flat[name] = typeof value === "string" ? value : value.join(", ");
    }
    this.headers = flat;
  }

  /** Keeps the first RESPONSE_BODY_LIMIT bytes and drains the rest, so the connection stays reusable. */
  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.kept < RESPONSE_BODY_LIMIT) {
      const part = chunk.length <= RESPONSE_BODY_LIMIT - this.kept ? chunk : chunk.subarray(0, RESPONSE_BODY_LIMIT - this.kept);
      this.chunks.push(part);
      this.kept += part.length;
    }
  }

  onResponseEnd(): void {
    if (this.settle()) return;
    const body = this.chunks.length === 1 ? this.chunks[0].toString("utf8") : Buffer.concat(this.chunks).toString("utf8");
    this.resolve({ kind: "response", status: this.status, headers: this.headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.settle()) return;
    const kind = this.timedOut ? "timeout" : errorKindOf(err);
    // A receiver refusing a client certificate closes the connection after the handshake, with nothing
    // the client can tell apart from any other close: the message names the likely reason.
    const closed = this.clientCert && kind === "connection" && this.status === 0;
    const message = describeError(err, kind) + (closed ? `; ${CLOSED_WITH_CLIENT_CERT}` : "");
    // TLS 1.2 refuses in the handshake, with an alert about the certificate; TLS 1.3 after it, by closing.
    const clientCertRefused = this.clientCert && (closed || (kind === "tls" && CLIENT_CERT_ALERT.test(errorCode(err))));
    this.resolve({ kind: "error", errorKind: kind, message, ...(clientCertRefused ? { clientCertRefused: true as const } : {}) });
  }

  /** Marks the exchange settled; true when it already was. */
  private settle(): boolean {
    if (this.settled) return true;
    this.settled = true;
    this.controller = null;
    this.deadline.delete(this);
    return false;
  }
}

/**
 * Exchanges starting within the same 50 ms share one deadline timer (each gets 5.00–5.05 s): one
 * timer per request would cost more than the rest of an attempt's bookkeeping (docs/webhooks.md#delivery-cost).
 */
const BUCKET_MS = 50;
const deadlines = new Map<number, Set<Exchange>>();

/** The set of exchanges whose deadline timer fires with this one's. */
function deadlineBucket(): Set<Exchange> {
  const now = Date.now();
  const bucket = Math.ceil(now / BUCKET_MS) * BUCKET_MS;
  let members = deadlines.get(bucket);
  if (!members) {
    const set = new Set<Exchange>();
    members = set;
    deadlines.set(bucket, set);
    setTimeout(
      () => {
        deadlines.delete(bucket);
        for (const x of set) x.expire();
        set.clear();
      },
      bucket + ATTEMPT_TIMEOUT_MS - now,
    ).unref();
  }
  return members;
}

const CLOSED_WITH_CLIENT_CERT =
  "the receiver closed the connection before answering, as it does when it refuses the client certificate (docs/endpoint-auth.md#mutual-tls)";

/** The alerts a TLS server sends about the client's certificate (OpenSSL's names, as Node codes them). */
const CLIENT_CERT_ALERT =
  /ALERT_(BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_REQUIRED|CERTIFICATE_UNKNOWN|UNSUPPORTED_CERTIFICATE|CERTIFICATE_REVOKED|CERTIFICATE_EXPIRED|ACCESS_DENIED)/;

const errorCode = (err: unknown): string => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code ?? "";
};

function describeError(err: unknown, kind: string): string {
  if (kind === "timeout") return `no complete response within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const e = err as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.cause?.message && e.message === "fetch failed" ? e.cause.message : (e?.message ?? String(err));
  if (kind === "tls") return `TLS: ${message}${code && !message.includes(code) ? ` (${code})` : ""}; no request was sent`;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
