import "server-only";
import http from "node:http";

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function forwardedHeaders(req: http.IncomingMessage): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  // The web app reads the client's address from the right end of X-Forwarded-For, counting this
  // server as one more trusted proxy (docs/operations.md#client-addresses).
  const peer = req.socket.remoteAddress ?? "unknown";
  const given = req.headers["x-forwarded-for"];
  headers["x-forwarded-for"] = given ? `${Array.isArray(given) ? given.join(", ") : given}, ${peer}` : peer;
  return headers;
}

/**
 * Passes a request to the web app and streams its answer back, headers as sent (several
 * Set-Cookie included). When the web app is down, a 502 that says so; the Tracking API is not
 * proxied, so it is unaffected.
 */
export function proxyToWeb(target: URL, req: http.IncomingMessage, res: http.ServerResponse): void {
  const upstream = http.request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: forwardedHeaders(req), agent },
    (up) => {
      const raw: string[] = [];
      for (let i = 0; i < up.rawHeaders.length; i += 2) {
        if (!HOP_BY_HOP.has(up.rawHeaders[i].toLowerCase())) raw.push(up.rawHeaders[i], up.rawHeaders[i + 1]);
      }
      res.writeHead(up.statusCode ?? 502, up.statusMessage, raw);
      up.pipe(res);
    },
  );
  upstream.on("error", () => {
    if (res.headersSent) return void res.destroy();
    const body = JSON.stringify({
      error: { code: "unavailable", message: "The dashboard is unavailable; the Tracking API (/v1) still accepts events." },
    });
    res.writeHead(502, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}
