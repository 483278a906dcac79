import "server-only";
import http from "node:http";

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);

/**
 * A request body up to this size is read whole before the request takes a slot; a larger one is
 * over every limit of the web app (1 MB: API bodies, capture bodies), which then answers 413 after
 * its first megabyte, so such a request holds its slot only that long.
 */
export const BUFFERED_BODY_BYTES = 1024 * 1024;

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

/** At most `limit` holders at once; the others wait in arrival order. */
class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  /** Resolves with a release function once a slot is free; `cancelled` drops a waiter that left. */
  take(cancelled: AbortSignal): Promise<(() => void) | null> {
    return new Promise((resolve) => {
      const grant = () => {
        this.busy++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.busy--;
          this.next();
        });
      };
      if (this.busy < this.limit) return grant();
      this.waiting.push(grant);
      cancelled.addEventListener(
        "abort",
        () => {
          const i = this.waiting.indexOf(grant);
          if (i !== -1) this.waiting.splice(i, 1);
          resolve(null);
        },
        { once: true },
      );
    });
  }
  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
  private next() {
    const grant = this.waiting.shift();
    if (grant) grant();
  }
}

const unavailable = JSON.stringify({
  error: { code: "unavailable", message: "The dashboard is unavailable; the Tracking API (/v1) still accepts events." },
});

/**
 * Passes requests to the web app, at most `concurrency` at a time (docs/architecture.md#processes):
 * a flood of dashboard requests then keeps at most that many web requests — and their database
 * queries — running, and the cores stay free for /v1, which is answered in this process and never
 * waits for a slot. A slot is held only while the web app works: a request's body is read before
 * it takes one and the answer is read whole before it is passed on, so slow or stalled clients
 * hold none. Headers pass as sent (several Set-Cookie included). When the web app is down, a 502
 * that says so.
 */
export function createWebProxy(target: URL, opts: { concurrency: number }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const slots = new Slots(opts.concurrency);

  function proxyToWeb(req: http.IncomingMessage, res: http.ServerResponse): void {
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let started = false;
    const start = (streamRest: boolean) => {
      if (started) return;
      started = true;
      void slots.take(gone.signal).then((release) => {
        if (!release) return; // the client left while waiting
        forward(req, res, { chunks, streamRest, release, gone: gone.signal });
      });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > BUFFERED_BODY_BYTES) {
        req.off("data", onData);
        req.pause();
        start(true);
      }
    };
    req.on("data", onData);
    req.once("end", () => start(false));
  }
  return Object.assign(proxyToWeb, { queued: () => slots.queued });

  function forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    o: { chunks: Buffer[]; streamRest: boolean; release: () => void; gone: AbortSignal },
  ) {
    const headers = forwardedHeaders(req);
    if (!o.streamRest && req.headers["transfer-encoding"] !== undefined) {
      // A chunked body read whole goes on with its length.
      headers["content-length"] = String(o.chunks.reduce((n, c) => n + c.length, 0));
    }
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (up) => {
      const body: Buffer[] = [];
      let ended = false;
      up.on("data", (c: Buffer) => body.push(c));
      // The web app dropped the connection mid-answer: nothing whole to pass on.
      up.once("close", () => {
        if (ended) return;
        o.release();
        res.destroy();
      });
      up.once("end", () => {
        ended = true;
        o.release();
        if (o.gone.aborted) return;
        const raw: string[] = [];
        for (let i = 0; i < up.rawHeaders.length; i += 2) {
          if (!HOP_BY_HOP.has(up.rawHeaders[i].toLowerCase())) raw.push(up.rawHeaders[i], up.rawHeaders[i + 1]);
        }
        res.writeHead(up.statusCode ?? 502, up.statusMessage, raw);
        res.end(Buffer.concat(body));
      });
    });
    upstream.once("error", () => {
      o.release();
      if (o.gone.aborted) return;
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, {
        "content-type": "application/json",
        "cache-control": "no-store",
        "content-length": Buffer.byteLength(unavailable),
      });
      res.end(unavailable);
    });
    o.gone.addEventListener("abort", () => upstream.destroy(), { once: true });
    for (const c of o.chunks) upstream.write(c);
    if (o.streamRest) {
      req.pipe(upstream);
      req.resume();
    } else {
      upstream.end();
    }
  }
}
