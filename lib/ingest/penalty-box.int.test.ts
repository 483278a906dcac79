/**
 * The penalty box (lib/ingest/penalty-box.ts, docs/edge.md#oversized-bodies): after a body over its
 * limit, the same client's chunked bodies and bodies declared over a limit are held unread, then
 * refused, for a while; its other requests, and other clients, pass as always. Real servers on
 * 127.0.0.1: the edge, one trusted proxy in front (so each case is its own client by
 * X-Forwarded-For), and a stand-in web app that records what reaches it.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bytesReadAtClose,
  closeAll,
  rawExchange,
  recordingWebApp,
  request,
  startEdge,
  statuses,
  uploadUntilClosed,
} from "../../test/harness/edge";
import { WEB_BODY_BYTES } from "./proxy";

const MB = 1024 * 1024;
const CHUNK_OF_1MB = Buffer.from(`${MB.toString(16)}\r\n${"x".repeat(MB)}\r\n`);
const chunked = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n0\r\n\r\n`;
// Long enough that a call served at once stays under it on a loaded CI machine (a 363 ms answer
// failed it at 300); a held one waits it out whatever the load.
const HOLD_MS = 1_000;

let web: Awaited<ReturnType<typeof recordingWebApp>>;
let port: number;
let readByEdge: Map<number, number>;
beforeAll(async () => {
  web = await recordingWebApp();
  const edge = await startEdge({
    webUrl: web.url,
    webConcurrency: 2,
    trustedProxies: 1,
    limits: { penaltyBoxMs: 60_000, penaltyHoldMs: HOLD_MS },
  });
  port = edge.port;
  readByEdge = bytesReadAtClose(edge.server);
});
afterAll(closeAll);

let clients = 0;
/** A client of its own, as the trusted proxy in front names it. */
const newClient = () => `198.51.${Math.floor(++clients / 250)}.${(clients % 250) + 1}`;

const head = (path: string, client: string, framing: string) =>
  `POST ${path} HTTP/1.1\nHost: h\nContent-Type: application/json\nX-Forwarded-For: ${client}\nConnection: close\n${framing}`;

const endless = (client: string, path: string) =>
  uploadUntilClosed(port, readByEdge, request(head(path, client, "Transfer-Encoding: chunked")), CHUNK_OF_1MB);

/** One request on its own connection; its statuses and how long the answer took. */
async function exchange(bytes: string, to = port) {
  const t = performance.now();
  const r = await rawExchange(to, bytes, 30_000);
  return { ...r, statuses: statuses(r.text), ms: performance.now() - t };
}
const chunkedBody = (client: string, body = '{"a":1}', path = "/api/small", to = port) =>
  exchange(request(head(path, client, "Transfer-Encoding: chunked"), chunked(body)), to);
const declaredBody = (client: string, body = '{"a":1}', path = "/api/declared") =>
  exchange(request(head(path, client, `Content-Length: ${Buffer.byteLength(body)}`), body));

describe("the penalty box", () => {
  it.each(["/api/destinations", "/api/auth/login", "/v1/batch"])(
    "after an endless chunked upload to %s, that client's chunked bodies wait unread and get 411; its declared ones and other clients' pass at once",
    async (path) => {
      const attacker = newClient();
      const other = newClient();
      const first = await endless(attacker, path);
      expect(first.edgeRead).toBeGreaterThan(4 * 1024); // read up to its limit before the refusal

      const before = web.seen.length;
      const refused = await chunkedBody(attacker);
      expect(refused.statuses).toEqual([411]);
      expect(refused.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
      expect(refused.text).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(refused.text).toMatch(/\r\nconnection: close\r\n/i);
      expect(refused.text).toMatch(/"code":"length_required".*declare Content-Length/);
      expect(refused.closed).toBe(true);
      // Unread: another endless upload costs the edge its headers and the linger, not a limit's worth.
      const again = await endless(attacker, path);
      expect(statuses(again.answer)).toEqual([411]);
      expect(again.edgeRead).toBeLessThan(256 * 1024); // what a declared length over the limit costs too (docs/edge.md#framing)
      expect(web.seen.length).toBe(before);

      const ok = await declaredBody(attacker);
      expect(ok.statuses).toEqual([200]);
      expect(ok.ms).toBeLessThan(HOLD_MS);
      expect((await chunkedBody(other)).statuses).toEqual([200]);
      expect(web.seen.slice(before).map((s) => [s.url, s.headers["x-forwarded-for"]])).toEqual([
        ["/api/declared", `${attacker}, 127.0.0.1`],
        ["/api/small", `${other}, 127.0.0.1`],
      ]);
    },
  );

  it("a declared length over the limit boxes its client too: the next over-limit declaration waits, then gets the route's refusal", async () => {
    const client = newClient();
    const big = "x".repeat(2 * MB);
    const first = await declaredBody(client, big);
    expect(first.statuses).toEqual([413]);
    const second = await declaredBody(client, big);
    expect(second.statuses).toEqual([413]);
    expect(second.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
    expect(second.text).toMatch(/"code":"payload_too_large"/);
    expect((await chunkedBody(client)).statuses).toEqual([411]);
    expect((await declaredBody(client)).statuses).toEqual([200]);
  });

  it("a chunked body within the limit boxes nothing, nor does a refusal for another reason", async () => {
    const client = newClient();
    expect((await chunkedBody(client)).statuses).toEqual([200]);
    // A chunked body to a route that takes none: refused 400 and closed, not read to a limit.
    const get = await exchange(request(`GET /x HTTP/1.1\nHost: h\nX-Forwarded-For: ${client}\nTransfer-Encoding: chunked`, chunked("x")));
    expect(get.statuses).toEqual([400]);
    expect((await chunkedBody(client)).statuses).toEqual([200]);
  });

  it("a boxed client that leaves while held gets nothing and costs nothing more; the edge goes on serving", async () => {
    const client = newClient();
    await declaredBody(client, "x".repeat(2 * MB));
    const before = web.seen.length;
    const left = await rawExchange(port, request(head("/api/small", client, "Transfer-Encoding: chunked"), chunked("{}")), 50);
    expect(left.text).toBe(""); // gave up before the hold ended
    expect((await declaredBody(newClient())).statuses).toEqual([200]);
    expect(web.seen.length).toBe(before + 1);
  });

  it("the box ends: chunked bodies pass again once it has run out", async () => {
    const edge = await startEdge({ webUrl: web.url, trustedProxies: 1, limits: { penaltyBoxMs: 500, penaltyHoldMs: 10 } });
    const client = newClient();
    expect((await chunkedBody(client, "y".repeat(2 * MB), "/api/small", edge.port)).statuses).toEqual([413]);
    expect((await chunkedBody(client, "z", "/api/small", edge.port)).statuses).toEqual([411]);
    await expect.poll(async () => (await chunkedBody(client, "z", "/api/small", edge.port)).statuses, { timeout: 5_000 }).toEqual([200]);
  });

  it("generated sequences of bodies from two clients are answered as the box's rules say", async () => {
    type Kind = "chunked small" | "chunked over" | "declared small" | "declared over";
    const kinds: Kind[] = ["chunked small", "chunked over", "declared small", "declared over"];
    const big = "x".repeat(WEB_BODY_BYTES + 1);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constantFrom(...kinds), who: fc.constantFrom(0, 1) }), { maxLength: 8 }),
        async (steps) => {
          const who = [newClient(), newClient()];
          const boxed = [false, false];
          for (const { kind, who: i } of steps) {
            const body = kind.endsWith("over") ? big : "{}";
            const r = kind.startsWith("chunked") ? await chunkedBody(who[i], body) : await declaredBody(who[i], body);
            const expected =
              kind === "declared small" ? 200 : kind.startsWith("chunked") && boxed[i] ? 411 : kind.endsWith("over") ? 413 : 200;
            expect({ kind, boxed: boxed[i], statuses: r.statuses }).toEqual({ kind, boxed: boxed[i], statuses: [expected] });
            if (kind.endsWith("over") && expected === 413) boxed[i] = true;
          }
        },
      ),
      { seed: 48, numRuns: 12 },
    );
  });
});
