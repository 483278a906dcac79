/**
 * The edge's connections to the web app (web-connections.ts): a request that fails, however it
 * fails, leaves no connection behind that the next request would wait on. A real server on 127.0.0.1.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebConnections } from "./web-connections";

let server: http.Server;
let origin: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    // A web app that dies mid-answer on /cut.
    if (req.url === "/cut") {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
      return void setImmediate(() => req.socket.destroy());
    }
    res.end(`answer to ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const answer = async (c: WebConnections, path: string, headers: Record<string, string> = {}) => {
  const res = await c.request({ origin, path, method: "GET", headers });
  return res.body.text();
};

it("a request undici refuses before sending (a Host it cannot parse) leaves the one connection usable", async () => {
  const connections = new WebConnections(origin, { connections: 1, clientOptions: { pipelining: 1 } });
  for (let i = 0; i < 5; i++) await expect(answer(connections, "/x", { host: "[" })).rejects.toThrow();
  for (let i = 0; i < 5; i++) expect(await answer(connections, `/ok${i}`)).toBe(`answer to /ok${i}`);
  expect(connections.stats).toEqual({ idle: 1, inUse: 0 });
  await connections.close();
});

it("an answer cut short destroys its connection; the next request gets a fresh one", async () => {
  const connections = new WebConnections(origin, { connections: 1, clientOptions: { pipelining: 1 } });
  for (let i = 0; i < 3; i++) {
    await expect(answer(connections, "/cut")).rejects.toThrow();
    expect(await answer(connections, "/after")).toBe("answer to /after");
  }
  expect(connections.stats).toEqual({ idle: 1, inUse: 0 });
  await connections.close();
});

it("keeps at most `connections` idle between requests", async () => {
  const connections = new WebConnections(origin, { connections: 2, clientOptions: { pipelining: 1 } });
  await Promise.all(Array.from({ length: 5 }, (_, i) => answer(connections, `/p${i}`)));
  expect(connections.stats).toEqual({ idle: 2, inUse: 0 });
  await connections.destroy();
});
