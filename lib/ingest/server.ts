import "server-only";
import http from "node:http";
import os from "node:os";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from "fastify";
import { logger } from "../platform/logger";
import { clientAddressOfRaw } from "./address";
import { bodyPending, edgeError, isClosing, markOverLimit, wentOverLimit } from "./answers";
import { type ConnectionLimits, guardConnections } from "./connections";
import { PenaltyBox } from "./penalty-box";
import { registerWebProxy } from "./proxy";
import { registerTracking } from "./tracking-routes";
import { FairGate } from "./web-gate";
import { tooLargeMessage } from "../api/too-large";
import { MAX_BODY_BYTES } from "../tracking/limits";

/**
 * The edge (docs/edge.md): the public port, on fastify. It answers /v1 itself with lib/tracking —
 * the same code as the web app's app/v1 routes — so the Tracking API never waits behind the
 * dashboard and keeps answering when the web process is down, and passes everything else to the
 * web app (Next) on an internal address, framing every request it forwards itself. Without a web
 * URL it serves /v1 only (a dedicated ingest tier behind a load balancer).
 */

/**
 * Web requests in flight at once by default: one fewer than the cores, at least 2, so that a busy
 * dashboard leaves a core to the Tracking API (docs/architecture.md#processes).
 */
export const defaultWebConcurrency = () => Math.max(2, os.availableParallelism() - 1);

/**
 * The listen backlog: connections the kernel completes before the edge accepts them. Node's 511
 * fills when one client opens hundreds of connections at once, and a full queue drops every
 * client's SYN — a retransmit 1 s later (docs/decisions/0051-edge-under-abuse.md). Linux caps it
 * at net.core.somaxconn (4096 by default since 5.4).
 */
export const LISTEN_BACKLOG = 4096;

export type EdgeLimits = ConnectionLimits & {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection's life: longer than common load balancers' 60 s, so they close first. */
  keepAliveTimeoutMs: number;
  /** Longest wait for a web slot before 503 + Retry-After. */
  webWaitMs: number;
  /** After a body over its limit, how long its client's address stays in the penalty box (0: never; penalty-box.ts). */
  penaltyBoxMs: number;
  /** How long a boxed client's chunked or over-limit body is held, unread, before its refusal. */
  penaltyHoldMs: number;
};

export const DEFAULT_LIMITS: EdgeLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  webWaitMs: 3_000,
  penaltyBoxMs: 10_000,
  penaltyHoldMs: 1_000,
  perAddress: 256,
  total: 10_000,
  evictAfterIdleMs: 1_000,
  webRoom: 9_000,
  minBodyBytesPerSecond: 8 * 1024,
  bodyRateGraceMs: 5_000,
};

export type EdgeOptions = {
  webUrl: string | null;
  webConcurrency?: number;
  trustedProxies?: number;
  publicUrl?: string | null;
  limits?: Partial<EdgeLimits>;
};

/** Status codes of fastify's and Node's own refusals, by the code the edge answers with. */
const CODE_BY_STATUS: Record<number, string> = {
  400: "bad_request",
  404: "not_found",
  408: "request_timeout",
  413: "payload_too_large",
  415: "unsupported_content_type",
};

/** A request's body limit: its route's, or for /v1, which reads its body itself, the Tracking API's (lib/tracking/limits.ts). */
function bodyLimitOf(request: FastifyRequest): number {
  const path = request.url.split("?")[0];
  return path === "/v1" || path.startsWith("/v1/") ? MAX_BODY_BYTES : (request.routeOptions.bodyLimit ?? 0);
}

export async function createEdge(opts: EdgeOptions): Promise<{ app: FastifyInstance; server: http.Server }> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const trustedProxies = opts.trustedProxies ?? 0;
  let server!: http.Server;
  const box = new PenaltyBox(limits.penaltyBoxMs);
  const app = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    // A target fastify cannot route (a malformed % escape in its path) is the client's mistake: 400
    // in the edge's own shape (docs/edge.md#hosts-and-targets).
    frameworkErrors: (err, _request, reply) =>
      void edgeError(
        reply,
        400,
        "bad_request",
        err.code === "FST_ERR_BAD_URL" ? "The path has a malformed % escape" : "The request cannot be read",
      ),
    routerOptions: { ignoreTrailingSlash: true },
    // Absolute-form targets (`GET http://host/path`) are routed by their path, as RFC 9112 §3.2.2 asks.
    rewriteUrl: (req) => {
      const url = req.url ?? "/";
      const m = /^https?:\/\/[^/?#]*(.*)$/i.exec(url);
      return m ? (m[1].startsWith("/") ? m[1] : `/${m[1]}`) : url;
    },
    serverFactory: (handler) => {
      server = http.createServer(
        {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: limits.requestTimeoutMs,
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          // Node checks the two deadlines above this often (default 30 s).
          connectionsCheckingInterval: 1_000,
          requireHostHeader: true,
        },
        handler,
      );
      server.maxRequestsPerSocket = 10_000;
      // A client may half-close after its request (FIN after the last byte, RFC 9112 §9.6): it still
      // gets its answer, then the connection ends. Node's default drops the request at the FIN, so
      // an answer that needs the web app or the database never came (docs/edge.md#framing).
      (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
      // `Expect: 100-continue`: Node would send 100 Continue before the edge has looked at the
      // request. With this listener it does not; the preParsing hook below sends it only when the
      // body will be read, so a body refused from its head is never sent (RFC 9110 §10.1.1).
      server.on("checkContinue", handler);
      return server;
    },
  });
  // `OPTIONS *` (asterisk-form) asks about the server itself.
  app.addHook("onRequest", (request, reply, done) => {
    // A request parsed behind an answer that closes the connection (while it lingers) is dropped.
    if (isClosing(request.raw)) {
      reply.hijack();
      return void request.raw.destroy();
    }
    if (request.raw.url === "*") return void reply.code(204).header("allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS").send();
    // Node frames any coding list that ends in chunked; the edge knows chunked alone (docs/edge.md#framing).
    const te = request.raw.headers["transfer-encoding"];
    if (te !== undefined && te.trim().toLowerCase() !== "chunked")
      return void edgeError(reply, 400, "bad_request", "Transfer-Encoding other than chunked is not supported", { close: true });
    // A boxed client's chunked body, or one declared over its limit, waits unread, then is refused:
    // chunked ones 411 here, declared ones by the route as always (penalty-box.ts). With nobody in
    // the box (the usual case) no request pays for its address or its limit.
    const suspect = !box.empty && (te !== undefined || Number(request.raw.headers["content-length"] ?? 0) > bodyLimitOf(request));
    const address = suspect ? clientAddressOfRaw(request.raw, trustedProxies) : "";
    if (!suspect || !box.boxed(address)) return done();
    request.raw.pause();
    const socket = request.raw.socket;
    const hold = setTimeout(() => {
      socket.off("close", gone);
      if (te === undefined) return done();
      const wait = box.secondsLeft(address);
      edgeError(
        reply,
        411,
        "length_required",
        `A body from this client went over its limit: for the next ${wait} s, declare Content-Length`,
        {
          close: true,
          retryAfter: wait,
        },
      );
    }, limits.penaltyHoldMs);
    const gone = () => clearTimeout(hold);
    socket.once("close", gone);
  });
  app.addHook("onResponse", (request, _reply, done) => {
    if (wentOverLimit(request.raw)) box.strike(clientAddressOfRaw(request.raw, trustedProxies));
    done();
  });
  // The 100 Continue a client waits for before its body (see checkContinue above): sent once the
  // request has passed every check before its body, unless its declared length is already over its
  // route's limit — then the refusal is the only answer, and the body never leaves the client.
  app.addHook("preParsing", (request, reply, payload, done) => {
    if (request.raw.headers.expect?.toLowerCase() === "100-continue" && !reply.raw.headersSent) {
      const declared = Number(request.raw.headers["content-length"] ?? 0);
      if (!(declared > bodyLimitOf(request))) reply.raw.writeContinue();
    }
    done(null, payload);
  });
  let guard: ReturnType<typeof guardConnections> | null = null;
  await app.register(async (root) => {
    root.setErrorHandler((err: FastifyError, request, reply) => {
      if (request.raw.aborted || request.raw.socket.destroyed) {
        logger().info({ path: request.url.split("?")[0] }, "client aborted");
        return reply;
      }
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      // A web body over its route's limit is refused in the web app's words (lib/api/too-large.ts).
      const path = request.url.split("?")[0];
      if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") markOverLimit(request.raw);
      const message =
        err.code === "FST_ERR_CTP_BODY_TOO_LARGE" && !(path === "/v1" || path.startsWith("/v1/"))
          ? tooLargeMessage(request.routeOptions.bodyLimit ?? 0)
          : err.message;
      if (status === 500) logger().error({ err: err.message, path: request.url.split("?")[0] }, "edge error");
      // A refused body may still be arriving: the connection cannot carry another request.
      return edgeError(
        reply,
        status,
        CODE_BY_STATUS[status] ?? (status === 500 ? "internal" : "bad_request"),
        status === 500 ? "Internal error" : message,
        {
          close: bodyPending(request.raw),
        },
      );
    });
    root.setNotFoundHandler((request, reply) => edgeError(reply, 404, "not_found", "Not found", { close: bodyPending(request.raw) }));
    await registerTracking(root, { trustedProxies, publicUrl: opts.publicUrl ?? null });
    if (opts.webUrl) {
      const concurrency = opts.webConcurrency ?? defaultWebConcurrency();
      await root.register(async (web) => {
        await registerWebProxy(web, {
          webUrl: opts.webUrl!,
          trustedProxies,
          webHasRoom: () => guard?.webHasRoom() ?? true,
          slots: new FairGate({
            limit: concurrency,
            perAddress: Math.max(1, concurrency - 1),
            waitMs: limits.webWaitMs,
            maxWaiting: 256,
            maxWaitingPerAddress: 32,
          }),
          // The capture receiver's lane: test-sends to the app's own capture URLs are answered while
          // the dashboard request that sent them holds its slot (docs/edge.md#web-slots).
          captures: new FairGate({
            limit: concurrency,
            perAddress: Math.max(1, concurrency - 1),
            waitMs: limits.webWaitMs,
            maxWaiting: 256,
            maxWaitingPerAddress: 32,
          }),
          // One login hashes at a time; a flood waits briefly in its own lane and is then shed.
          logins: new FairGate({
            limit: 1,
            perAddress: 1,
            waitMs: Math.min(2_000, limits.webWaitMs),
            maxWaiting: 16,
            maxWaitingPerAddress: 2,
          }),
        });
      });
    }
  });
  await app.ready();
  guard = guardConnections(server, limits);
  return { app, server };
}
