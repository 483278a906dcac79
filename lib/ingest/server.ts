import "server-only";
import http from "node:http";
import type { IncomingCall } from "../tracking/body";
import type { TrackingEndpoint } from "../tracking/ingest";
import { answerTrackingCall } from "../tracking/route-handler";
import os from "node:os";
import { createWebProxy } from "./proxy";

/**
 * The ingest server (docs/architecture.md#processes): a plain node:http server that answers the
 * Tracking API itself, with the same code as the web app's app/v1 routes (lib/tracking), and passes
 * every other request to the web app (Next) on an internal address. It is what listens on the
 * public port, so users configure one base URL, while /v1 never waits behind dashboard rendering
 * and keeps answering when the web process is down. Without a web URL it serves /v1 only (a
 * dedicated ingest tier behind a load balancer).
 */
const ENDPOINTS = new Set<string>(["track", "identify", "page", "screen", "group", "alias", "batch", "import"]);

/** The Tracking API endpoint a request path names (`/v1/track`, `/v1/batch?x`), or null. */
export function trackingEndpointOf(url: string): TrackingEndpoint | null {
  if (!url.startsWith("/v1/")) return null;
  const end = url.indexOf("?");
  const name = url.slice(4, end === -1 ? undefined : end);
  return ENDPOINTS.has(name) ? (name as TrackingEndpoint) : null;
}

/** The ingest view of a node:http request: header lookup and a body stream that a too-large body can stop. */
function incomingCall(req: http.IncomingMessage): IncomingCall {
  return {
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
        req.on("error", (err) => controller.error(err));
      },
      pull: () => void req.resume(),
      // Reading stops at the 500 KB limit; the socket stays up so that the 413 reaches the client
      // (the answer says Connection: close, so the unread rest is never parsed as a request).
      cancel: () => {
        req.removeAllListeners("data");
        req.pause();
      },
    }),
  };
}

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string>) {
  res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

const plainJson = { "content-type": "application/json", "cache-control": "no-store" };

/**
 * Web requests in flight at once by default: one fewer than the cores, at least 2, so that a busy
 * dashboard leaves a core to the Tracking API (docs/architecture.md#processes).
 */
export const defaultWebConcurrency = () => Math.max(2, os.availableParallelism() - 1);

export function createIngestServer(opts: { webUrl: string | null; webConcurrency?: number }): http.Server {
  const proxyToWeb = opts.webUrl
    ? createWebProxy(new URL(opts.webUrl), { concurrency: opts.webConcurrency ?? defaultWebConcurrency() })
    : null;
  return http.createServer((req, res) => {
    const endpoint = trackingEndpointOf(req.url ?? "/");
    if (endpoint === null) {
      if (proxyToWeb) return proxyToWeb(req, res);
      return send(res, 404, JSON.stringify({ success: false, error: { code: "not_found", message: "Not found" } }), plainJson);
    }
    if (req.method === "OPTIONS") return send(res, 204, "", { allow: "OPTIONS, POST" });
    if (req.method !== "POST") {
      const body = { success: false, error: { code: "method_not_allowed", message: `${req.method} is not allowed; POST a message` } };
      return send(res, 405, JSON.stringify(body), { ...plainJson, allow: "OPTIONS, POST" });
    }
    answerTrackingCall(incomingCall(req), endpoint).then(
      (a) => send(res, a.status, a.body, a.headers),
      // answerTrackingCall answers every error itself; this is a last resort, not a path.
      () => send(res, 500, JSON.stringify({ success: false, error: { code: "internal", message: "Internal error" } }), plainJson),
    );
  });
}
