/** Real HTTP(S) receivers on 127.0.0.1 for delivery tests. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type net from "node:net";
import type { TLSSocket } from "node:tls";
import os from "node:os";
import path from "node:path";

export type Received = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** the SHA-256 fingerprint of the client certificate the connection presented (a mutual-TLS receiver's) */
  peer?: string;
};
export type Reply =
  | {
      status: number;
      headers?: Record<string, string>;
      body?: string;
      delayMs?: number;
      /** Send the headers at once, then one byte of body every `everyMs`, `bytes` times, then end. */
      trickle?: { bytes: number; everyMs: number };
    }
  | "hang";
export type Responder = (req: Received, index: number) => Reply;

export type Receiver = {
  url: string;
  port: number;
  requests: Received[];
  /** TLS handshakes the server saw fail (HTTPS receivers) */
  tlsErrors: number;
  respond: Responder;
  close(): Promise<void>;
};

async function listen(
  server: http.Server | https.Server,
  scheme: "http" | "https",
  state: { respond: Responder; requests: Received[] },
): Promise<Receiver> {
  const sockets = new Set<net.Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  const receiver: Receiver = {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    requests: state.requests,
    tlsErrors: 0,
    get respond() {
      return state.respond;
    },
    set respond(fn) {
      state.respond = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  server.on("tlsClientError", () => receiver.tlsErrors++);
  return receiver;
}

function handler(state: { respond: Responder; requests: Received[] }) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const received: Received = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      const socket = req.socket as Partial<TLSSocket>;
      if (socket.getPeerCertificate) received.peer = socket.getPeerCertificate().fingerprint256;
      state.requests.push(received);
      const reply = state.respond(received, state.requests.length - 1);
      if (reply === "hang") return; // never answers; the client's timeout ends it
      const answer = () => {
        res.writeHead(reply.status, reply.headers ?? {});
        if (reply.trickle) return trickle(res, reply.trickle);
        res.end(reply.body ?? "");
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  };
}

/** Bounded: stops at `bytes`, or as soon as the client goes away. */
function trickle(res: http.ServerResponse, { bytes, everyMs }: { bytes: number; everyMs: number }) {
  res.flushHeaders();
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= bytes) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(".");
    sent++;
  }, everyMs);
  res.on("close", () => clearInterval(timer));
}

export async function startReceiver(respond: Responder = () => ({ status: 200, body: "ok" })): Promise<Receiver> {
  const state = { respond, requests: [] as Received[] };
  return listen(http.createServer({ keepAlive: true }, handler(state)), "http", state);
}

/** An HTTPS receiver with a self-signed certificate made now (openssl), valid for 127.0.0.1 and localhost. */
export async function startSelfSignedReceiver(): Promise<Receiver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-cert-"));
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdio: "ignore" },
  );
  const state = { respond: (() => ({ status: 200, body: "ok" })) as Responder, requests: [] as Received[] };
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, handler(state));
  fs.rmSync(dir, { recursive: true, force: true });
  return listen(server, "https", state);
}

/**
 * An HTTPS receiver that requires a client certificate issued by `clientCa` (requestCert,
 * rejectUnauthorized): a connection without one, or with another CA's, never reaches the handler.
 */
export async function startMutualTlsReceiver(opts: { server: { key: string; cert: string }; clientCa: string }): Promise<Receiver> {
  const state = { respond: (() => ({ status: 200, body: "ok" })) as Responder, requests: [] as Received[] };
  const server = https.createServer(
    { key: opts.server.key, cert: opts.server.cert, ca: opts.clientCa, requestCert: true, rejectUnauthorized: true },
    handler(state),
  );
  return listen(server, "https", state);
}
