/**
 * Sends a huge request body without ever holding it: chunks of `chunkBytes` written as the socket
 * drains, until the server answers (or `totalBytes` are sent). For the bounded-reads tests and the
 * abuse drill. Traffic only to the URL given (127.0.0.1 in tests).
 */
import http from "node:http";

export type StreamedAnswer = { status: number; body: string; ms: number; bytesSent: number };

export function streamHugeBody(opts: {
  url: string;
  totalBytes: number;
  /** Declare the length up front (true) or send it chunked, without Content-Length (false). */
  declareLength: boolean;
  headers?: Record<string, string>;
  /** The body starts with this (a JSON prefix) and is padded with "a" characters. */
  prefix?: string;
  chunkBytes?: number;
  /** The local address to connect from (the abuse drill gives each attacker its own). */
  localAddress?: string;
}): Promise<StreamedAnswer> {
  const started = performance.now();
  const chunk = Buffer.alloc(opts.chunkBytes ?? 64 * 1024, "a");
  const prefix = Buffer.from(opts.prefix ?? "");
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(opts.url, {
      method: "POST",
      localAddress: opts.localAddress,
      headers: {
        "content-type": "application/json",
        ...(opts.declareLength ? { "content-length": String(opts.totalBytes) } : { "transfer-encoding": "chunked" }),
        ...opts.headers,
      },
    });
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started, bytesSent: sent });
        req.destroy();
      });
    });
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    const pump = () => {
      while (!answered && sent < opts.totalBytes) {
        const piece = sent === 0 && prefix.length ? prefix : chunk.subarray(0, Math.min(chunk.length, opts.totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      if (!answered && sent >= opts.totalBytes) req.end();
    };
    pump();
  });
}

/** Resident memory of a process in MB (Linux /proc). */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
