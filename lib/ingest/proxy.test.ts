/**
 * The ingest server's gate to the web app (docs/architecture.md#processes): at most `concurrency`
 * web requests at once, and slow clients hold no slot. Real HTTP servers and sockets on 127.0.0.1.
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWebProxy } from "./proxy";

const open: { close(): void }[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** A stand-in web app that holds every request until the test lets it answer. */
async function heldWebApp() {
  const held: { path: string; answer: (body?: string | Buffer) => void }[] = [];
  const seen: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push(`${req.url} ${Buffer.concat(chunks).length}`);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      held.push({
        path: req.url ?? "",
        answer: (body = `answer to ${req.url}`) => {
          inFlight--;
          res.writeHead(200, { "content-type": "text/plain", "set-cookie": ["a=1", "b=2"] });
          res.end(body);
        },
      });
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  open.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return { url, held, seen, maxInFlight: () => maxInFlight };
}

async function proxyIn(target: URL, concurrency: number) {
  const proxy = createWebProxy(target, { concurrency });
  const server = http.createServer((req, res) => proxy(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  open.push({
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return { proxy, port: (server.address() as AddressInfo).port };
}

const get = (port: number, path: string) =>
  new Promise<{ status: number; body: string; cookies: string[] }>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, cookies: res.headers["set-cookie"] ?? [] }));
      })
      .on("error", reject);
  });

/** A raw client socket that sends `head` (and never reads the answer unless asked). */
async function rawClient(port: number, head: string) {
  const socket = net.connect(port, "127.0.0.1");
  open.push({ close: () => socket.destroy() });
  await new Promise<void>((r) => socket.once("connect", r));
  socket.write(head);
  return socket;
}

describe("the ingest server's proxy to the web app", () => {
  it("passes at most `concurrency` requests at once; the others wait their turn and are all answered", async () => {
    const web = await heldWebApp();
    const { proxy, port } = await proxyIn(web.url, 2);
    const answers = Promise.all([1, 2, 3, 4, 5].map((i) => get(port, `/api/r${i}`)));
    await vi.waitFor(() => expect(proxy.queued()).toBe(3));
    expect(web.held.length).toBe(2);
    // Each answer lets one waiting request through.
    for (let n = 0; n < 5; n++) {
      await vi.waitFor(() => expect(web.held.length).toBeGreaterThan(n));
      web.held[n].answer();
    }
    const results = await answers;
    expect(results.map((r) => r.body)).toEqual([1, 2, 3, 4, 5].map((i) => `answer to /api/r${i}`));
    expect(results[0].cookies).toEqual(["a=1", "b=2"]);
    expect(web.maxInFlight()).toBe(2);
  });

  it("gives no slot to a client still sending its body", async () => {
    const web = await heldWebApp();
    const { port } = await proxyIn(web.url, 1);
    // Declares 100 bytes, sends 10, and stalls.
    await rawClient(port, 'POST /api/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":"bcd"');
    const other = get(port, "/api/other");
    await vi.waitFor(() => expect(web.held.length).toBe(1));
    expect(web.held[0].path).toBe("/api/other");
    web.held[0].answer();
    expect((await other).body).toBe("answer to /api/other");
  });

  it("frees the slot once the web app has answered, even when the client does not read the answer", async () => {
    const web = await heldWebApp();
    const { port } = await proxyIn(web.url, 1);
    const reader = await rawClient(port, "GET /api/big HTTP/1.1\r\nHost: x\r\n\r\n");
    reader.pause();
    await vi.waitFor(() => expect(web.held.length).toBe(1));
    web.held[0].answer(Buffer.alloc(16 * 1024 * 1024, 120)); // far more than the sockets' buffers hold
    const other = get(port, "/api/after");
    await vi.waitFor(() => expect(web.held.length).toBe(2));
    web.held[1].answer();
    expect((await other).body).toBe("answer to /api/after");
  });

  it("never sends a request whose client left while it waited", async () => {
    const web = await heldWebApp();
    const { proxy, port } = await proxyIn(web.url, 1);
    const first = get(port, "/api/first");
    await vi.waitFor(() => expect(web.held.length).toBe(1));
    const leaver = await rawClient(port, "GET /api/left HTTP/1.1\r\nHost: x\r\n\r\n");
    await vi.waitFor(() => expect(proxy.queued()).toBe(1));
    leaver.destroy();
    await vi.waitFor(() => expect(proxy.queued()).toBe(0));
    web.held[0].answer();
    await first;
    const last = get(port, "/api/last");
    await vi.waitFor(() => expect(web.held.length).toBe(2));
    web.held[1].answer();
    await last;
    expect(web.seen).toEqual(["/api/first 0", "/api/last 0"]);
  });

  it("streams a body larger than it reads whole, and says 502 when the web app is down", async () => {
    const web = await heldWebApp();
    const { port } = await proxyIn(web.url, 1);
    const big = Buffer.alloc(3 * 1024 * 1024, 97);
    const posted = new Promise<number>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/api/big", agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end(big);
    });
    await vi.waitFor(() => expect(web.held.length).toBe(1));
    web.held[0].answer();
    expect(await posted).toBe(200);
    expect(web.seen).toEqual([`/api/big ${big.length}`]);

    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { port: deadProxy } = await proxyIn(new URL(`http://127.0.0.1:${deadPort}`), 1);
    const down = await get(deadProxy, "/api/sources");
    expect(down.status).toBe(502);
    expect(JSON.parse(down.body).error.code).toBe("unavailable");
  });
});
