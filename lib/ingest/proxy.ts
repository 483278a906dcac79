import "server-only";
import type { IncomingHttpHeaders } from "node:http";
import replyFrom from "@fastify/reply-from";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { logger } from "../platform/logger";
import { clientAddressOfRaw, forwardedFor } from "./address";
import { edgeError, isClosing, markOverLimit } from "./answers";
import { checkTarget, hostProblem } from "./request-checks";
import { WebConnections } from "./web-connections";
import type { FairGate, Refusal, Release } from "./web-gate";

/** Bodies the web app takes (API and capture bodies: 1 MB at most), read whole before forwarding. */
export const WEB_BODY_BYTES = 1024 * 1024;
/** GET, HEAD, OPTIONS, DELETE: a body up to this size is read and dropped; a larger one is refused. */
export const BODYLESS_BODY_BYTES = 1024;
/** Seconds a client is told to wait when no web slot came free in time. */
export const WEB_RETRY_AFTER_SECONDS = 2;

/**
 * Headers that describe one connection or one message's framing (RFC 9110 §7.6.1, RFC 9112 §6):
 * the edge frames each forwarded request itself, so none of the client's pass on. `expect` too:
 * the edge has already read the body.
 */
const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "http2-settings",
]);

/** The request headers the web app receives (docs/edge.md#what-the-web-app-receives). */
export function forwardedHeaders(req: FastifyRequest["raw"], body: Buffer | null): Record<string, string | string[]> {
  const listed = new Set(
    String(req.headers.connection ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers as IncomingHttpHeaders)) {
    if (value === undefined || NOT_FORWARDED.has(name) || listed.has(name)) continue;
    out[name] = value;
  }
  out["x-forwarded-for"] = forwardedFor(req);
  if (body) out["content-length"] = String(body.length);
  return out;
}

const RESPONSE_NOT_PASSED = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-connection",
  "trailer",
  "content-length",
]);

/**
 * The login lane's endpoints, whose password hashing is the web app's most expensive work, and their
 * body limit, the web app's for them (AUTH_MAX_BODY_BYTES, lib/auth/contract.ts; a unit test keeps
 * the two equal): anonymous uploads to them are refused at the edge past 4 KB, not read up to the
 * 1 MB of other web bodies (docs/edge.md#framing). An alias of these paths (canonicalPath) takes the
 * general limit here and 4 KB at the web app.
 */
export const LOGIN_PATHS = ["/api/auth/login", "/api/auth/setup"] as const;
export const LOGIN_BODY_BYTES = 4 * 1024;

/** True for a request to the login lane's endpoints (by the canonical path, a trailing segment too). */
const isLogin = (method: string, path: string) => method === "POST" && LOGIN_PATHS.some((p) => path === p || path.startsWith(`${p}/`));

/**
 * True for the built-in capture receiver (/c/<id>). The app's own deliveries post there while the
 * dashboard request that set them off ("Send test") still holds its web slot, from the same
 * loopback address: sharing the slots, the capture would wait for the request that waits for it.
 */
const isCapture = (path: string) => path.startsWith("/c/");

export type WebProxyOptions = {
  webUrl: string;
  slots: FairGate;
  logins: FairGate;
  /** The capture receiver's own slots: it answers without calling out, so it never waits on another slot. */
  captures: FairGate;
  trustedProxies: number;
  /** False when the last connections are kept for /v1: the web request is refused. */
  webHasRoom: () => boolean;
};

/**
 * Everything but /v1 goes to the web app (docs/edge.md#routes), through @fastify/reply-from on
 * an undici pool of `slots` connections. Each request's body is read whole first (up to its limit,
 * 413 and the connection closed past it) and forwarded with its Content-Length; bodies on GET and
 * HEAD never pass on. A request then waits a bounded time for a web slot — logins first for the
 * login lane — and holds it until the web app's answer has been read whole, so a slow client holds
 * none while it uploads or downloads.
 */
export async function registerWebProxy(app: FastifyInstance, o: WebProxyOptions): Promise<void> {
  // A connection for every slot of either lane: a capture must never queue behind held dashboard requests.
  const slotsLimit = o.slots.limit + o.captures.limit;
  await app.register(replyFrom, {
    base: o.webUrl,
    undici: new WebConnections(o.webUrl, {
      connections: slotsLimit,
      clientOptions: { pipelining: 1, headersTimeout: 120_000, bodyTimeout: 120_000 },
    }),
    disableRequestLogging: true,
    retryMethods: [],
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.raw;
    if (isClosing(raw)) {
      reply.hijack();
      return void reply.raw.destroy();
    }
    // Checked before anything is shared: the Host and target reach undici and the web app only valid
    // (docs/edge.md#hosts-and-targets).
    const badHost = hostProblem(raw.headers.host);
    if (badHost) return edgeError(reply, 400, "bad_request", badHost);
    const target = checkTarget(request.url);
    if ("problem" in target) return edgeError(reply, 400, "bad_request", target.problem);
    if (!o.webHasRoom())
      return edgeError(reply, 503, "unavailable", "The server is at its connection limit; retry shortly.", {
        close: true,
        retryAfter: WEB_RETRY_AFTER_SECONDS,
      });
    const address = clientAddressOfRaw(raw, o.trustedProxies);
    const gone = new AbortController();
    const releases: Release[] = [];
    const releaseAll = () => {
      for (const r of releases.splice(0)) r();
    };
    // The answer is over (sent, or the client left): whatever slot this request holds is free. A
    // pipelined request's answer may never start, so the socket's close counts too.
    const over = () => {
      raw.socket.off("close", over);
      gone.abort();
      releaseAll();
    };
    raw.socket.once("close", over);
    reply.raw.once("close", over);
    try {
      // By the path passed on, never the one sent: an alias of a login path is a login (canonicalPath).
      if (isLogin(request.method, target.path)) releases.push(await o.logins.take(address, gone.signal));
      releases.push(await (isCapture(target.path) ? o.captures : o.slots).take(address, gone.signal));
    } catch (why) {
      releaseAll();
      if ((why as Refusal) === "gone") return reply;
      return edgeError(reply, 503, "unavailable", "The dashboard is busy; retry shortly. The Tracking API (/v1) is not affected.", {
        retryAfter: WEB_RETRY_AFTER_SECONDS,
      });
    }
    const body = Buffer.isBuffer(request.body) && request.method !== "GET" && request.method !== "HEAD" ? request.body : null;
    // The canonical path, which reply-from's URL resolution leaves as it is; the query passes on as the client sent it.
    try {
      return reply.from(target.path, {
        queryString: () => target.query,
        body: body ?? undefined,
        contentType: body ? String(raw.headers["content-type"] ?? "application/octet-stream") : undefined,
        rewriteRequestHeaders: () => forwardedHeaders(raw, body),
        rewriteHeaders: (headers) => {
          const out: IncomingHttpHeaders = {};
          // A HEAD answer keeps the length of the GET it stands for.
          for (const [k, v] of Object.entries(headers))
            if (!RESPONSE_NOT_PASSED.has(k) || (k === "content-length" && request.method === "HEAD")) out[k] = v;
          return out;
        },
        onResponse: (_req, rep, res) => {
          const chunks: Buffer[] = [];
          res.stream.on("data", (c: Buffer) => chunks.push(c));
          res.stream.once("error", () => {
            releaseAll();
            rep.raw.destroy();
          });
          res.stream.once("end", () => {
            releaseAll();
            rep.send(Buffer.concat(chunks));
          });
        },
        onError: (rep, { error }) => {
          releaseAll();
          logger().warn({ err: (error as Error).message, path: request.url.split("?")[0] }, "web app unreachable");
          edgeError(rep as FastifyReply, 502, "unavailable", "The dashboard is unavailable; the Tracking API (/v1) still accepts events.");
        },
      });
    } catch (err) {
      // reply-from refuses some paths before sending (a `..` segment): the slots go back at once.
      releaseAll();
      if ((err as { statusCode?: number }).statusCode === 400) return edgeError(reply, 400, "bad_request", "The path cannot be passed on");
      throw err;
    }
  };

  const bodyless = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const h = request.raw.headers;
    if (h["transfer-encoding"] !== undefined) {
      return void edgeError(reply, 400, "bad_request", `A ${request.method} request cannot carry a chunked body`, { close: true });
    }
    if (Number(h["content-length"] ?? 0) > BODYLESS_BODY_BYTES) {
      markOverLimit(request.raw);
      return void edgeError(
        reply,
        413,
        "payload_too_large",
        `A ${request.method} request's body is limited to ${BODYLESS_BODY_BYTES} bytes`,
        { close: true },
      );
    }
    done();
  };
  app.route({ method: ["GET", "HEAD"], url: "/*", onRequest: bodyless, handler: forward });
  app.route({ method: ["OPTIONS", "DELETE"], url: "/*", bodyLimit: BODYLESS_BODY_BYTES, onRequest: bodyless, handler: forward });
  app.route({ method: ["POST", "PUT", "PATCH"], url: "/*", bodyLimit: WEB_BODY_BYTES, handler: forward });
  for (const url of LOGIN_PATHS) app.route({ method: "POST", url, bodyLimit: LOGIN_BODY_BYTES, handler: forward });
}
