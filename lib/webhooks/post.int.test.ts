// The delivery engine's HTTP exchange (post.ts) against a real server on 127.0.0.1: what the
// attempt log keeps of a response (docs/webhooks.md#attempt-log), the 64 KB cap that still leaves
// the connection reusable, and the 5 s deadline (docs/webhooks.md#outcomes).
import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.EVENTRAIL_ALLOW_PRIVATE_NETWORKS = "1";
const { ATTEMPT_TIMEOUT_MS, RESPONSE_BODY_LIMIT, postWebhook } = await import("./post");

let server: http.Server;
let base: string;
const sockets = new Set<net.Socket>();
const received: { path: string; headers: http.IncomingHttpHeaders; body: string; socket: net.Socket }[] = [];

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({ path: req.url!, headers: req.headers, body, socket: req.socket });
    if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(RESPONSE_BODY_LIMIT + 10_000));
    } else if (req.url === "/hang") {
      // never answers
    } else {
      res.writeHead(503, [
        ["Set-Cookie", "a=1"],
        ["Set-Cookie", "b=2"],
        ["X-Reason", "busy"],
      ]);
      res.end("try later");
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const request = { headers: { "content-type": "application/json", "x-signature": "abc" }, body: '{"a":"ü"}' };

describe("postWebhook", () => {
  it("sends the exact body and headers, and keeps status, headers (lower-cased, repeats joined) and body", async () => {
    const { result, durationMs, startedAt } = await postWebhook(`${base}/hook?x=1`, request);
    expect(result).toEqual({
      kind: "response",
      status: 503,
      headers: expect.objectContaining({ "set-cookie": "a=1, b=2", "x-reason": "busy", connection: "keep-alive" }),
      body: "try later",
    });
    expect(durationMs).toBeGreaterThanOrEqual(0);
    expect(startedAt).toBeInstanceOf(Date);
    const got = received.at(-1)!;
    expect(got.path).toBe("/hook?x=1");
    expect(got.body).toBe('{"a":"ü"}');
    expect(got.headers["x-signature"]).toBe("abc");
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength('{"a":"ü"}')));
  });

  it("keeps the first 64 KB of a body and reads the rest, so the connection is reused", async () => {
    const before = received.length;
    for (let i = 0; i < 5; i++) {
      const { result } = await postWebhook(`${base}/big`, request);
      expect(result.kind === "response" && result.body).toBe("x".repeat(RESPONSE_BODY_LIMIT));
    }
    // A connection closed after each capped body would show as five client ports.
    const ports = new Set(received.slice(before).map((r) => r.socket.remotePort));
    expect(ports.size).toBeLessThanOrEqual(2);
  });

  it("ends an exchange that outlives the deadline as a timeout", async () => {
    const { result, durationMs } = await postWebhook(`${base}/hang`, request);
    expect(result).toEqual({ kind: "error", errorKind: "timeout", message: "no complete response within 5 s" });
    expect(durationMs).toBeGreaterThanOrEqual(ATTEMPT_TIMEOUT_MS - 10);
    expect(durationMs).toBeLessThan(ATTEMPT_TIMEOUT_MS + 1_000);
  }, 10_000);

  it("refuses a URL that does not parse, without sending", async () => {
    const before = received.length;
    const { result } = await postWebhook("not a url", request);
    expect(result).toEqual({ kind: "error", errorKind: "internal", message: "invalid URL" });
    expect(received.length).toBe(before);
  });
});
