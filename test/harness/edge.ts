/**
 * Real servers and raw sockets for the edge's tests (lib/ingest/*.test.ts): a stand-in web app that
 * records every request it sees — method, target, every header, the body — and the edge in front
 * of it, both on 127.0.0.1. Nothing is mocked.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { expect } from "vitest";
import { createEdge, type EdgeOptions } from "../../lib/ingest/server";

export type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; rawHeaders: string[]; body: Buffer };

const closers: (() => Promise<void> | void)[] = [];
export async function closeAll(): Promise<void> {
  for (const c of closers.splice(0).reverse()) await c();
}

/** The stand-in web app: answers `answer to METHOD URL` (after `hold` resolves, when given). */
export async function recordingWebApp(opts: { hold?: (seen: Seen) => Promise<void> } = {}) {
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const s: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      };
      seen.push(s);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await opts.hold?.(s);
      inFlight--;
      const body = `answer to ${req.method} ${req.url}`;
      res.writeHead(200, { "content-type": "text/plain", "set-cookie": ["a=1", "b=2"], "keep-alive": "timeout=5", "x-web": "1" });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, maxInFlight: () => maxInFlight };
}

export async function startEdge(opts: EdgeOptions) {
  const { app, server } = await createEdge(opts);
  await app.listen({ port: 0, host: "127.0.0.1" });
  closers.push(async () => {
    server.closeAllConnections();
    await app.close();
  });
  return { app, server, port: (server.address() as AddressInfo).port };
}

/**
 * Sends `bytes` on a new connection and collects what comes back until the server closes the
 * connection or `idleMs` pass without a byte (bounded either way).
 */
export function rawExchange(port: number, bytes: string | Buffer, idleMs = 400): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let timer = setTimeout(() => finish(false), idleMs);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    });
    socket.on("error", () => {});
    socket.on("close", () => finish(true));
    socket.write(bytes);
  });
}

/** The status lines of the answers in a raw exchange, in order. */
export const statuses = (text: string): number[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

/** An HTTP/1.1 request as bytes. */
export const request = (head: string, body = "") => `${head.split("\n").join("\r\n")}\r\n\r\n${body}`;

/** A raw socket that connects and stays open, for tests that hold connections. */
export async function openSocket(port: number): Promise<net.Socket> {
  const s = net.connect(port, "127.0.0.1");
  s.on("error", () => {});
  closers.push(() => void s.destroy());
  await new Promise<void>((r, j) => {
    s.once("connect", r);
    s.once("error", j);
  });
  return s;
}

/** Bytes the edge read from each connection once it closed, by the client's port. */
export function bytesReadAtClose(server: http.Server): Map<number, number> {
  const read = new Map<number, number>();
  server.on("connection", (socket: net.Socket) => socket.once("close", () => read.set(socket.remotePort ?? 0, socket.bytesRead)));
  return read;
}

/**
 * Sends `head`, then writes of `chunk` as fast as the connection takes them, 64 at most, until the
 * edge drops the connection: what the client got back, what it could write, and what the edge read
 * of it (`readByEdge` from bytesReadAtClose).
 */
export async function uploadUntilClosed(port: number, readByEdge: Map<number, number>, head: string, chunk: Buffer) {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise((r) => socket.once("connect", r));
  const clientPort = socket.localPort ?? 0;
  let answer = "";
  socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
  const closed = new Promise((r) => socket.once("close", r));
  socket.write(head);
  let accepted = 0;
  for (let i = 0; i < 64 && !socket.destroyed; i++) {
    if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once("drain", r)), closed]);
    if (!socket.destroyed) accepted += chunk.length;
  }
  await closed;
  await expect.poll(() => readByEdge.has(clientPort)).toBe(true);
  return { answer, accepted, edgeRead: readByEdge.get(clientPort)! };
}
