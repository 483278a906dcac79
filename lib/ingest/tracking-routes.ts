import "server-only";
import type http from "node:http";
import cors from "@fastify/cors";
import type { FastifyInstance, FastifyReply } from "fastify";
import { logger } from "../platform/logger";
import { AppError } from "../platform/errors";
import type { IncomingCall } from "../tracking/body";
import type { TrackingEndpoint } from "../tracking/ingest";
import { MAX_BODY_BYTES } from "../tracking/limits";
import { answerTrackingCall, type TrackingAnswer } from "../tracking/route-handler";
import { answerBrowserBundle, answerBrowserChunk, answerSettings, preloadBrowserBundles } from "../tracking/segment-clients";
import { clientAddressOfRaw, publicBaseUrl } from "./address";
import { bodyPending, closeAfterAnswer, edgeError, isClosing, markOverLimit } from "./answers";
import { hostProblem } from "./request-checks";

/** Path names of the Tracking API, long and short (Segment's browser and mobile libraries use the short ones). */
export const ENDPOINT_BY_NAME: Readonly<Record<string, TrackingEndpoint>> = {
  track: "track",
  identify: "identify",
  page: "page",
  screen: "screen",
  group: "group",
  alias: "alias",
  batch: "batch",
  import: "batch",
  t: "track",
  i: "identify",
  p: "page",
  s: "screen",
  g: "group",
  a: "alias",
  b: "batch",
};

/** CORS for every client on any origin (docs/edge.md#cors): preflights answered here, a day's max-age. */
export const CORS_MAX_AGE_SECONDS = 86_400;

/**
 * The tracking view of a request: its headers, its body as a stream that lib/tracking reads up to
 * its own limit (stopping there answers 400 and closes the connection), and the client's address.
 * A client that leaves mid-body is a client abort, logged as one, not a server failure.
 */
function incomingCall(req: http.IncomingMessage, clientAddress: string): IncomingCall {
  return {
    clientAddress,
    headers: {
      get(name) {
        const v = req.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
      },
    },
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        });
        req.on("end", () => controller.close());
        const aborted = () => {
          logger().info({ path: req.url }, "client aborted: the connection closed before the body was complete");
          controller.error(new AppError("bad_request", "The connection closed before the body was complete"));
        };
        req.once("aborted", aborted);
        req.once("edge:too-slow", aborted);
        req.on("error", () => {});
      },
      pull: () => void req.resume(),
      cancel: () => {
        req.removeAllListeners("data");
        req.pause();
      },
    }),
  };
}

/** Reads and drops a body up to `limit` bytes; resolves at its end, at the limit, or when the client leaves. */
function drainUpTo(req: http.IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read <= limit) return;
      req.off("data", onData);
      req.pause();
      resolve();
    };
    req.on("data", onData);
    req.once("end", resolve);
    req.once("close", resolve);
  });
}

const send = (reply: FastifyReply, a: TrackingAnswer) => {
  // lib/tracking stopped reading a body over its limit: the rest is not read either.
  if (a.headers.connection === "close") {
    markOverLimit(reply.request.raw);
    closeAfterAnswer(reply);
  }
  return reply.code(a.status).headers(a.headers).send(a.body);
};

/**
 * /v1 in this process (docs/edge.md#routes), never behind the web app: the Tracking API with
 * lib/tracking, the short paths, /v1/m (the browser library's telemetry: accepted, dropped), the
 * settings document, and the browser bundle — all with CORS.
 */
export async function registerTracking(app: FastifyInstance, o: { trustedProxies: number; publicUrl: string | null }) {
  const withCors = async (scope: FastifyInstance) =>
    scope.register(cors, {
      origin: "*",
      methods: ["GET", "POST"],
      allowedHeaders: ["Content-Type", "Authorization"],
      maxAge: CORS_MAX_AGE_SECONDS,
      strictPreflight: false,
    });
  await app.register(
    async (v1) => {
      await withCors(v1);
      // lib/tracking reads the body itself, to its own limit and with its own answers.
      v1.removeAllContentTypeParsers();
      v1.addContentTypeParser("*", (_req, payload, done) => done(null, payload));
      // An empty Content-Type is no Content-Type, which lib/tracking accepts (docs/tracking-api.md);
      // fastify would refuse it as an invalid media type before the route runs.
      v1.addHook("onRequest", (request, _reply, done) => {
        if (request.raw.headers["content-type"]?.trim() === "") delete request.raw.headers["content-type"];
        done();
      });

      v1.post<{ Params: { name: string } }>("/:name", async (request, reply) => {
        const raw = request.raw;
        if (isClosing(raw)) {
          reply.hijack();
          return void raw.destroy();
        }
        if (request.params.name === "m") {
          // Read and dropped up to the Tracking API's body limit, so the connection stays usable;
          // past it reading stops, and so does the connection.
          await drainUpTo(raw, MAX_BODY_BYTES);
          if (bodyPending(raw)) {
            markOverLimit(raw);
            closeAfterAnswer(reply);
          }
          return reply.code(200).header("content-type", "application/json").send('{"success":true}');
        }
        const endpoint = ENDPOINT_BY_NAME[request.params.name];
        if (!endpoint) return notHere(request.url, reply);
        return send(reply, await answerTrackingCall(incomingCall(raw, clientAddressOfRaw(raw, o.trustedProxies)), endpoint));
      });
      v1.get<{ Params: { writeKey: string } }>("/projects/:writeKey/settings", async (request, reply) => {
        // Without a configured public URL the document names the Host it was asked on: a checked one
        // (docs/edge.md#hosts-and-targets).
        const badHost = o.publicUrl ? null : hostProblem(request.raw.headers.host);
        if (badHost) return edgeError(reply, 400, "bad_request", badHost);
        const url = publicBaseUrl(request.raw, { configured: o.publicUrl, trustedProxies: o.trustedProxies });
        return send(reply, await answerSettings(request.params.writeKey, { url, fromHost: !o.publicUrl }));
      });
      v1.route({
        method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
        url: "/*",
        handler: async (request, reply) => {
          const name = request.url.slice(4).split(/[/?]/)[0];
          if (request.method !== "POST" && (name in ENDPOINT_BY_NAME || name === "m")) {
            reply.header("allow", "OPTIONS, POST");
            return edgeError(reply, 405, "method_not_allowed", `${request.method} is not allowed; POST a message`, {
              close: bodyPending(request.raw),
            });
          }
          return notHere(request.url, reply);
        },
      });
    },
    { prefix: "/v1" },
  );
  await app.register(
    async (bundle) => {
      await withCors(bundle);
      bundle.get("/v1/:writeKey/analytics.min.js", async (_request, reply) => send(reply, answerBrowserBundle()));
    },
    { prefix: "/analytics.js" },
  );
  // The chunks the standalone bundle loads lazily from its own CDN path (lib/tracking/segment-clients.ts).
  await app.register(
    async (chunks) => {
      await withCors(chunks);
      chunks.get<{ Params: { file: string } }>("/bundles/:file", async (request, reply) =>
        send(reply, answerBrowserChunk(request.params.file)),
      );
    },
    { prefix: "/analytics-next" },
  );
  preloadBrowserBundles();
}

const notHere = (url: string, reply: FastifyReply) =>
  edgeError(reply, 404, "not_found", `No Tracking API endpoint at ${url.split("?")[0]}`, { close: bodyPending(reply.request.raw) });
