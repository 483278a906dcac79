/**
 * Slow and greedy clients (docs/edge.md#slow-and-greedy-clients): deadlines for headers and bodies,
 * a minimum body rate, connection caps that evict idle sockets, fair and bounded web slots, and
 * the login lane. Real servers on 127.0.0.1, with the edge's limits shortened so each test takes
 * seconds; client addresses come from X-Forwarded-For with one trusted proxy, so one test machine
 * can play many clients.
 */
import diagnostics from "node:diagnostics_channel";
import net from "node:net";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { closeAll, openSocket, recordingWebApp, request, type Seen, startEdge } from "../../test/harness/edge";

afterEach(closeAll);

const get = async (port: number, path: string, from = "10.0.0.99") => {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { "x-forwarded-for": from } });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get("retry-after") };
};

/** A web app that holds every request for `path` until `releaseAll()`, and answers the rest at once. */
async function webHolding(path: RegExp) {
  const waiting: (() => void)[] = [];
  const web = await recordingWebApp({
    hold: (s: Seen) => (path.test(s.url) ? new Promise<void>((r) => waiting.push(r)) : Promise.resolve()),
  });
  return {
    web,
    releaseAll: () => {
      for (const r of waiting.splice(0)) r();
    },
  };
}

const closedWithin = (socket: import("node:net").Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    socket.once("close", () => {
      clearTimeout(t);
      resolve(true);
    });
  });

describe("deadlines", () => {
  it("a client that trickles its headers is cut off at the header deadline", async () => {
    const web = await recordingWebApp();
    const { port } = await startEdge({ webUrl: web.url, limits: { headersTimeoutMs: 1_000 } });
    const socket = await openSocket(port);
    socket.write("GET /api/health HTTP/1.1\r\nHost: h\r\n");
    const trickle = setInterval(() => socket.writable && socket.write("X-A: 1\r\n"), 200);
    try {
      expect(await closedWithin(socket, 4_000)).toBe(true);
    } finally {
      clearInterval(trickle);
    }
    expect(web.seen).toHaveLength(0);
  });

  it("two slow uploads are cut off by the minimum body rate, hold no web slot, and the dashboard answers meanwhile", async () => {
    const web = await recordingWebApp();
    const { port } = await startEdge({
      webUrl: web.url,
      webConcurrency: 2,
      trustedProxies: 1,
      limits: { bodyRateGraceMs: 1_000, minBodyBytesPerSecond: 4_096 },
    });
    const uploads = await Promise.all([openSocket(port), openSocket(port)]);
    const trickles = uploads.map((s) => {
      s.write(request("POST /api/sources HTTP/1.1\nHost: h\nContent-Type: application/json\nContent-Length: 500000"));
      return setInterval(() => s.writable && s.write("x"), 100);
    });
    try {
      for (let i = 0; i < 5; i++) {
        const health = await get(port, "/api/health");
        expect(health.status).toBe(200);
        expect(health.ms).toBeLessThan(1_000);
      }
      expect(await Promise.all(uploads.map((s) => closedWithin(s, 5_000)))).toEqual([true, true]);
    } finally {
      for (const t of trickles) clearInterval(t);
    }
    expect(web.seen.map((s) => s.url)).not.toContain("/api/sources");
  });
});

describe("connection caps", () => {
  it("idle sockets from one address are bounded; while all are freshly opened its next connection is reset unread", async () => {
    const web = await recordingWebApp();
    const { port, server } = await startEdge({
      webUrl: web.url,
      limits: { perAddress: 20, total: 1_000, webRoom: 900, evictAfterIdleMs: 60_000 },
    });
    // What Node's HTTP layer and any other `connection` listener get: the admitted ones alone.
    let handedOn = 0;
    server.on("connection", () => handedOn++);
    // And what Node makes a net.Socket of (it publishes each server-side socket it makes): the
    // admitted ones alone too — a refused connection is reset as the bare handle it was accepted as.
    let madeSockets = 0;
    const made = (m: unknown) => {
      if ((m as { socket: { server?: unknown } }).socket.server === server) madeSockets++;
    };
    diagnostics.subscribe("net.server.socket", made);
    onTestFinished(() => void diagnostics.unsubscribe("net.server.socket", made));
    const idle = [];
    // Past the cap they are reset: some as they connect.
    for (let i = 0; i < 60; i++) idle.push(await openSocket(port).catch(() => null));
    const count = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    await expect.poll(count).toBeLessThanOrEqual(20);
    // None of the 20 has been idle a minute: nothing to replace, so the new connection is refused.
    await expect(get(port, "/api/health")).rejects.toThrow();
    expect(web.seen).toEqual([]);
    expect(handedOn).toBe(20);
    expect(madeSockets).toBe(20);
    expect(await count()).toBeLessThanOrEqual(20);
  });

  it("connections handed to the edge's server by another (its `connection` event) are capped the same", async () => {
    const web = await recordingWebApp();
    const { server } = await startEdge({
      webUrl: web.url,
      limits: { perAddress: 20, total: 1_000, webRoom: 900, evictAfterIdleMs: 60_000 },
    });
    let handedOn = 0;
    server.on("connection", () => handedOn++);
    // A front server that accepts and passes each socket on, as a process handing off connections does.
    const front = net.createServer({ pauseOnConnect: true }, (socket) => server.emit("connection", socket));
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    onTestFinished(() => new Promise<void>((r) => front.close(() => r())));
    const closedByEdge = [];
    for (let i = 0; i < 30; i++) {
      // The front accepts each; a reset by the edge may come before the client has seen its connect.
      const s = net.connect((front.address() as net.AddressInfo).port, "127.0.0.1");
      s.on("error", () => {});
      onTestFinished(() => void s.destroy());
      closedByEdge.push(new Promise<boolean>((r) => s.once("close", () => r(true))));
      await new Promise<void>((r) => {
        s.once("connect", r);
        s.once("close", r);
      });
    }
    await expect.poll(() => handedOn).toBe(20);
    // The ten past the cap are reset; the twenty admitted stay open.
    const settled = await Promise.all(closedByEdge.slice(20));
    expect(settled).toEqual(Array(10).fill(true));
    expect(handedOn).toBe(20);
  });

  it("once they have been idle long enough, the address's next request replaces the oldest and is answered", async () => {
    const web = await recordingWebApp();
    const { port, server } = await startEdge({
      webUrl: web.url,
      limits: { perAddress: 20, total: 1_000, webRoom: 900, evictAfterIdleMs: 200 },
    });
    const idle = [];
    // Past the cap they are reset: some as they connect.
    for (let i = 0; i < 60; i++) idle.push(await openSocket(port).catch(() => null));
    const count = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
    await expect.poll(count).toBeLessThanOrEqual(20);
    // Until the held ones pass 200 ms idle a request may still be refused; then it is served.
    await expect.poll(async () => (await get(port, "/api/health").catch(() => ({ status: 0 }))).status, { timeout: 10_000 }).toBe(200);
    expect(await count()).toBeLessThanOrEqual(20);
    expect(web.seen.map((s) => s.url)).toEqual(["/api/health"]);
  });

  it("past the web's share of busy connections, web requests are refused and /v1 keeps the rest; idle ones do not count", async () => {
    const web = await recordingWebApp();
    const { port } = await startEdge({ webUrl: web.url, limits: { perAddress: 100, total: 100, webRoom: 10 } });
    for (let i = 0; i < 12; i++) await openSocket(port);
    expect((await get(port, "/api/health")).status).toBe(200);
    // Requests whose bodies are still arriving hold their connections busy.
    const uploading = [];
    for (let i = 0; i < 12; i++) {
      const s = await openSocket(port);
      s.write("POST /api/sources HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
      uploading.push(s);
    }
    await expect.poll(async () => (await get(port, "/api/health")).status).toBe(503);
    const dashboard = await get(port, "/api/health");
    expect(dashboard).toMatchObject({ status: 503, retryAfter: "2" });
    const tracking = await fetch(`http://127.0.0.1:${port}/v1/m`, { method: "POST", body: "{}" });
    expect(tracking.status).toBe(200);
    expect(web.seen.map((s) => s.url)).not.toContain("/api/sources");
    for (const s of uploading) s.destroy();
  });
});

describe("web slots", () => {
  it("one address cannot take every slot: another client's request goes straight through", async () => {
    const { web, releaseAll } = await webHolding(/^\/api\/slow/);
    const { port } = await startEdge({ webUrl: web.url, webConcurrency: 2, trustedProxies: 1, limits: { webWaitMs: 5_000 } });
    const greedy = Array.from({ length: 10 }, () => get(port, "/api/slow", "10.0.0.1"));
    try {
      const other = await get(port, "/api/health", "10.0.0.2");
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(1_000);
      // The greedy client holds one slot of the two.
      expect(web.seen.filter((s) => s.url === "/api/slow")).toHaveLength(1);
    } finally {
      releaseAll();
      const interval = setInterval(releaseAll, 20);
      await Promise.all(greedy);
      clearInterval(interval);
    }
  });

  it("a request that finds no slot in time is answered 503 with Retry-After, quickly", async () => {
    const { web, releaseAll } = await webHolding(/^\/api\/slow/);
    const { port } = await startEdge({ webUrl: web.url, webConcurrency: 2, trustedProxies: 1, limits: { webWaitMs: 300 } });
    const held = [get(port, "/api/slow", "10.0.0.1"), get(port, "/api/slow", "10.0.0.2")];
    try {
      await expect.poll(() => web.seen.length).toBe(2);
      const refused = await get(port, "/api/health", "10.0.0.3");
      expect(refused).toMatchObject({ status: 503, retryAfter: "2" });
      expect(refused.ms).toBeLessThan(1_000);
    } finally {
      releaseAll();
      await Promise.all(held);
    }
  });

  it("by default a request waits 3 s for a slot (docs/edge.md#web-slots), then 503", async () => {
    const { web, releaseAll } = await webHolding(/^\/api\/slow/);
    // No webWaitMs here: the edge's own default is what is measured.
    const { port } = await startEdge({ webUrl: web.url, webConcurrency: 2, trustedProxies: 1 });
    const held = [get(port, "/api/slow", "10.0.0.1"), get(port, "/api/slow", "10.0.0.2")];
    try {
      await expect.poll(() => web.seen.length).toBe(2);
      const refused = await get(port, "/api/health", "10.0.0.3");
      expect(refused).toMatchObject({ status: 503, retryAfter: "2" });
      expect(refused.ms).toBeGreaterThan(2_900);
      expect(refused.ms).toBeLessThan(4_000);
    } finally {
      releaseAll();
      await Promise.all(held);
    }
  }, 10_000);

  it("a capture request goes through while its own address and everyone else hold every dashboard slot", async () => {
    // "Send test" to the app's own capture URL: the dashboard request holds its slot until the
    // capture, posted back through the edge from the same address, is answered.
    const { web, releaseAll } = await webHolding(/^\/api\/slow/);
    const { port } = await startEdge({ webUrl: web.url, webConcurrency: 2, trustedProxies: 1, limits: { webWaitMs: 300 } });
    const held = [get(port, "/api/slow", "10.0.0.1"), get(port, "/api/slow", "10.0.0.2")];
    try {
      await expect.poll(() => web.seen.length).toBe(2);
      const captured = await fetch(`http://127.0.0.1:${port}/c/abcdefghijklmnopqrstuvwx`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "10.0.0.1" },
        body: '{"type":"track"}',
      });
      expect(captured.status).toBe(200);
      expect(web.seen.map((s) => s.url)).toContain("/c/abcdefghijklmnopqrstuvwx");
    } finally {
      releaseAll();
      await Promise.all(held);
    }
  });

  it("a login flood waits in its own lane, one login at a time, and is shed; the dashboard keeps answering", async () => {
    const { web, releaseAll } = await webHolding(/^\/api\/auth\/login/);
    const { port } = await startEdge({ webUrl: web.url, webConcurrency: 2, trustedProxies: 1, limits: { webWaitMs: 1_000 } });
    const login = (i: number) =>
      fetch(`http://127.0.0.1:${port}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `10.1.0.${i}` },
        body: '{"email":"a@b.c","password":"x"}',
      }).then((r) => r.status);
    const flood = Array.from({ length: 40 }, (_, i) => login(i));
    try {
      await expect.poll(() => web.seen.length).toBe(1);
      for (let i = 0; i < 5; i++) {
        const health = await get(port, "/api/health", "10.0.0.9");
        expect(health.status).toBe(200);
        expect(health.ms).toBeLessThan(1_000);
      }
      expect(web.seen.filter((s) => s.url === "/api/auth/login")).toHaveLength(1);
    } finally {
      const interval = setInterval(releaseAll, 20);
      const statuses = await Promise.all(flood);
      clearInterval(interval);
      // Past its lane's queue, or its wait, a login is refused at once: 503, never a queue without end.
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    }
  });
});
