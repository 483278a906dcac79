// Outbound safety (docs/webhooks.md#outbound-safety) through the delivery engine's own request path: with private
// networks not allowed (the default), every forbidden target is refused with error kind "ssrf" and
// a real receiver listening on loopback never sees a request.
import http from "node:http";
import type net from "node:net";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "./post";
import { errorKindOf } from "./outcome";
import { guardedLookup, isPublicAddress } from "./ssrf";

let server: http.Server;
let port: number;
let received = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    received++;
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const send = (url: string) => postWebhook(url, { headers: { "content-type": "application/json" }, body: "{}" });

describe("the SSRF guard on the delivery path", () => {
  const forbidden = {
    "loopback IPv4": () => `http://127.0.0.1:${port}/hook`,
    "loopback IPv6": () => `http://[::1]:${port}/hook`,
    "private 10/8": () => "http://10.1.2.3/hook",
    "private 172.16/12": () => "http://172.16.0.1/hook",
    "private 192.168/16": () => "http://192.168.1.1/hook",
    "link-local (cloud metadata)": () => "http://169.254.169.254/latest/meta-data",
    "link-local IPv6": () => "http://[fe80::1]/hook",
    "unique-local IPv6": () => "http://[fd00::1]/hook",
    "IPv4-mapped IPv6 of loopback": () => `http://[::ffff:127.0.0.1]:${port}/hook`,
    "IPv4-mapped IPv6 of metadata": () => "http://[::ffff:169.254.169.254]/hook",
    unspecified: () => `http://0.0.0.0:${port}/hook`,
  };
  for (const [what, url] of Object.entries(forbidden)) {
    it(`refuses ${what}`, async () => {
      const r = await send(url());
      expect(r.result).toMatchObject({ kind: "error", errorKind: "ssrf" });
    });
  }

  it("sent nothing to the loopback receiver", () => {
    expect(received).toBe(0);
  });

  it("refuses a hostname that resolves to a private address, at connect time, and sends nothing", async () => {
    for (const address of ["127.0.0.1", "10.0.0.5", "169.254.169.254", "::ffff:127.0.0.1"]) {
      const agent = new Agent({ connect: { lookup: guardedLookup(async () => [{ address, family: address.includes(":") ? 6 : 4 }]) } });
      const err = await request(`http://hooks.customer.example:${port}/hook`, { method: "POST", body: "{}", dispatcher: agent }).then(
        () => null,
        (e) => e,
      );
      expect({ address, kind: errorKindOf(err) }).toEqual({ address, kind: "ssrf" });
      await agent.close();
    }
    expect(received).toBe(0);
  });

  it("lets a public address through the check", () => {
    expect(isPublicAddress("93.184.216.34")).toBe(true);
    expect(isPublicAddress("2606:2800:220:1:248:1893:25c8:1946")).toBe(true);
  });
});
