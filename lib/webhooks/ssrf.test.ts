import http from "node:http";
import type net from "node:net";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorKindOf } from "./outcome";
import { guardedLookup, isPublicAddress, refusedLiteralTarget } from "./ssrf";

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.1",
    "172.16.5.4",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.0.1",
    "100.64.0.1",
    "100.127.255.254",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "ff02::1",
    "64:ff9b::a00:1",
    "2002:0a00:0001::1",
    "not-an-ip",
  ])("refuses %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows %s",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});

describe("guardedLookup", () => {
  const run = (addresses: { address: string; family: number }[], options: object = {}) =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      guardedLookup(async () => addresses)("example.test", options, (err, address) => resolve({ err, address })),
    );

  it("passes a public address through", async () => {
    expect(await run([{ address: "93.184.216.34", family: 4 }])).toEqual({ err: null, address: "93.184.216.34" });
    expect((await run([{ address: "93.184.216.34", family: 4 }], { all: true })).address).toEqual([
      { address: "93.184.216.34", family: 4 },
    ]);
  });

  it("refuses a name when any of its addresses is private (rebinding-style mixed answers)", async () => {
    const { err } = await run([
      { address: "93.184.216.34", family: 4 },
      { address: "169.254.169.254", family: 4 },
    ]);
    expect(err?.message).toMatch(/169\.254\.169\.254/);
    expect(errorKindOf(err)).toBe("ssrf");
  });

  it("reports DNS failures as DNS failures", async () => {
    const err = await new Promise<Error | null>((resolve) =>
      guardedLookup(async () => {
        throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.test"), { code: "ENOTFOUND" });
      })("nowhere.test", {}, (e) => resolve(e)),
    );
    expect(errorKindOf(err)).toBe("dns");
  });
});

describe("refusedLiteralTarget", () => {
  it("refuses private literal IPs and lets names through to the lookup", () => {
    expect(refusedLiteralTarget(new URL("http://127.0.0.1:8080/x"))).toMatch(/127\.0\.0\.1/);
    expect(refusedLiteralTarget(new URL("http://[::1]/x"))).toMatch(/::1/);
    expect(refusedLiteralTarget(new URL("http://169.254.169.254/latest/meta-data"))).toMatch(/169/);
    expect(refusedLiteralTarget(new URL("https://8.8.8.8/"))).toBeNull();
    expect(refusedLiteralTarget(new URL("https://hooks.example.com/"))).toBeNull();
  });
});

describe("a guarded connection (private networks not allowed)", () => {
  let server: http.Server;
  let port: number;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      requests++;
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("refuses localhost at connect time and the receiver sees nothing", async () => {
    const agent = new Agent({ connect: { lookup: guardedLookup() } });
    const err = await request(`http://localhost:${port}/hook`, { method: "POST", body: "{}", dispatcher: agent }).then(
      () => null,
      (e) => e,
    );
    expect(errorKindOf(err)).toBe("ssrf");
    expect(requests).toBe(0);
    // The same server is reachable without the guard: the refusal above is the guard's doing.
    const ok = await request(`http://localhost:${port}/hook`, { method: "POST", body: "{}", dispatcher: new Agent() });
    await ok.body.text();
    expect(requests).toBe(1);
    await agent.close();
  });
});
