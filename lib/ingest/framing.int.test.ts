/**
 * The edge frames every request it passes to the web app itself (docs/edge.md#framing): smuggling
 * classes over raw TCP, every body limit at, under and over, and every header the web app receives.
 * Real servers on 127.0.0.1: the edge and a stand-in web app that records all it sees.
 */
import http from "node:http";
import net from "node:net";
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
import { MAX_BODY_BYTES } from "../tracking/limits";
import { LINGER_BYTES, LINGER_MS } from "./lingering-close";
import { BODYLESS_BODY_BYTES, LOGIN_BODY_BYTES, WEB_BODY_BYTES } from "./proxy";
import { checkTarget } from "./request-checks";

let web: Awaited<ReturnType<typeof recordingWebApp>>;
let port: number;
/** Bytes the edge read from each connection once it closed, by the client's port. */
let readByEdge: Map<number, number>;
beforeAll(async () => {
  web = await recordingWebApp();
  // Bodies over their limits from one address, each case followed by more: the penalty box that
  // would follow is penalty-box.int.test.ts's.
  const edge = await startEdge({ webUrl: web.url, webConcurrency: 2, limits: { penaltyBoxMs: 0 } });
  port = edge.port;
  readByEdge = bytesReadAtClose(edge.server);
});
afterAll(closeAll);

const uploadWithoutEnd = (head: string, chunk: Buffer) => uploadUntilClosed(port, readByEdge, head, chunk);
const MB = 1024 * 1024;
const CHUNK_OF_1MB = Buffer.from(`${MB.toString(16)}\r\n${"x".repeat(MB)}\r\n`);
const RAW_1MB = Buffer.alloc(MB, "x");

/** A request hidden in a body: if the web app ever parsed it as its own, it would show in `seen`. */
const SMUGGLED = request("GET /smuggled HTTP/1.1\nHost: h\nX-Forwarded-For: 6.6.6.6");
const AFTER = request("GET /after HTTP/1.1\nHost: h");
const chunked = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n0\r\n\r\n`;

/** Sends an attack and a second client's request; neither the web app nor the second client may see the smuggled one. */
async function attack(bytes: string) {
  const before = web.seen.length;
  const attacker = await rawExchange(port, bytes);
  // The victim's exchange ends when the edge closes it (Connection: close), not after 400 ms of
  // silence, which a loaded machine can exceed before the first byte.
  const victim = await rawExchange(port, request("GET /victim HTTP/1.1\nHost: h\nConnection: close"), 30_000);
  const seen = web.seen.slice(before).map((s) => `${s.method} ${s.url}`);
  expect(seen).not.toContain("GET /smuggled");
  expect(victim.text).toMatch(/answer to GET \/victim$/);
  expect(statuses(victim.text)).toEqual([200]);
  return { attacker, seen };
}

describe("smuggling classes", () => {
  it("CL.TE and TE.CL: both framings at once are refused before anything is forwarded", async () => {
    for (const head of ["Content-Length: 4\nTransfer-Encoding: chunked", "Transfer-Encoding: chunked\nContent-Length: 4"]) {
      const { attacker, seen } = await attack(request(`POST /api/a HTTP/1.1\nHost: h\n${head}`, `0\r\n\r\n${SMUGGLED}`));
      expect(statuses(attacker.text)).toEqual([400]);
      expect(attacker.closed).toBe(true);
      expect(seen).toEqual(["GET /victim"]);
    }
  });

  it("TE.TE: obfuscated Transfer-Encoding is refused or framed, never passed on", async () => {
    const obfuscations = [
      "Transfer-Encoding: xchunked",
      "Transfer-Encoding : chunked",
      "Transfer-Encoding: chunked\nTransfer-Encoding: identity",
      "Transfer-Encoding: identity, chunked",
      "Transfer-Encoding:\tchunked",
      " Transfer-Encoding: chunked",
      "Transfer-Encoding: chunked\nContent-Length: 0",
    ];
    for (const te of obfuscations) {
      const { attacker, seen } = await attack(request(`POST /api/te HTTP/1.1\nHost: h\n${te}`, chunked(SMUGGLED) + AFTER));
      // Either refused (and the connection closed), or read whole as chunked with the smuggled bytes as its body.
      if (statuses(attacker.text)[0] === 200) {
        expect(seen).toContain("POST /api/te");
        expect(web.seen.find((s) => s.url === "/api/te")?.body.toString()).toBe(SMUGGLED);
      } else {
        expect(statuses(attacker.text)[0]).toBeGreaterThanOrEqual(400);
        expect(attacker.closed).toBe(true);
      }
    }
  });

  it("a transfer coding other than chunked alone is refused, on /v1 too, and the connection closed", async () => {
    for (const path of ["/api/te", "/v1/track"]) {
      for (const te of ["gzip, chunked", "deflate, chunked", "chunked, chunked"]) {
        const { attacker, seen } = await attack(request(`POST ${path} HTTP/1.1\nHost: h\nTransfer-Encoding: ${te}`, chunked(SMUGGLED)));
        expect({ path, te, statuses: statuses(attacker.text), closed: attacker.closed }).toEqual({
          path,
          te,
          statuses: [400],
          closed: true,
        });
        expect(seen).toEqual(["GET /victim"]);
      }
    }
  });

  it("duplicate and comma-separated Content-Length are refused", async () => {
    for (const cl of ["Content-Length: 0\nContent-Length: 40", "Content-Length: 0, 40", "Content-Length: +40", "Content-Length: 4 0"]) {
      const { attacker, seen } = await attack(request(`POST /api/cl HTTP/1.1\nHost: h\n${cl}`, SMUGGLED));
      expect(statuses(attacker.text)).toEqual([400]);
      expect(attacker.closed).toBe(true);
      expect(seen).toEqual(["GET /victim"]);
    }
  });

  it("chunked bodies on every method: bodiless methods refuse them; the others forward them framed, then serve the pipelined request", async () => {
    for (const method of ["GET", "HEAD", "OPTIONS", "DELETE"]) {
      const { attacker, seen } = await attack(
        request(`${method} /api/m HTTP/1.1\nHost: h\nTransfer-Encoding: chunked`, chunked(SMUGGLED) + AFTER),
      );
      expect(statuses(attacker.text)).toEqual([400]);
      expect(attacker.closed).toBe(true);
      expect(seen).toEqual(["GET /victim"]);
    }
    for (const method of ["POST", "PUT", "PATCH"]) {
      const { attacker, seen } = await attack(
        request(`${method} /api/m HTTP/1.1\nHost: h\nTransfer-Encoding: chunked`, chunked(SMUGGLED) + AFTER),
      );
      expect(statuses(attacker.text)).toEqual([200, 200]);
      expect(attacker.text).toMatch(new RegExp(`answer to ${method} /api/m[\\s\\S]*answer to GET /after`));
      expect(seen.sort()).toEqual([`${method} /api/m`, "GET /after", "GET /victim"].sort());
      const got = web.seen.findLast((s) => s.url === "/api/m")!;
      expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(SMUGGLED)));
      expect(got.headers["transfer-encoding"]).toBeUndefined();
      expect(got.body.toString()).toBe(SMUGGLED);
    }
  });

  it("absolute-form targets are routed by their path; OPTIONS * is answered by the edge", async () => {
    const abs = await attack(request("GET http://evil.example/api/abs?x=1 HTTP/1.1\nHost: h\nConnection: close"));
    expect(abs.seen).toContain("GET /api/abs?x=1");
    expect(abs.attacker.text).toMatch(/answer to GET \/api\/abs\?x=1$/);
    const star = await attack(request("OPTIONS * HTTP/1.1\nHost: h") + AFTER);
    expect(statuses(star.attacker.text)).toEqual([204, 200]);
    expect(star.seen.sort()).toEqual(["GET /after", "GET /victim"]);
  });
});

describe("paths: the web app receives the path the edge classified (docs/edge.md#hosts-and-targets)", () => {
  // The edge picks a request's lane (login, capture, dashboard) by its path; a path that the URL
  // parser or the web app's router reads as another one (`/api/./auth/login`, `/api/auth/%6cogin`,
  // `//c/x`) would let a request take a lane that is not its own. The edge passes on the one path it
  // classified, in canonical form.
  const segment = fc.oneof(
    fc.constantFrom("api", "auth", "login", "setup", "c", "x", "health"),
    fc.constantFrom(".", "%2e", "%2E", "", "%6cogin", "%61pi", "%41", "a%2fb", "a%2Fb", "%7e", "%C3%A9", "%c3%a9", "~", "a;b"),
  );
  const paths = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segs) => `/${segs.join("/")}`);

  it("generated paths: what is passed on is what checkTarget gives, a path no parser reads differently", async () => {
    await fc.assert(
      fc.asyncProperty(paths, async (path) => {
        const checked = checkTarget(path);
        const before = web.seen.length;
        const { text } = await rawExchange(port, request(`GET ${path}?q=%20 HTTP/1.1\nHost: h\nConnection: close`), 30_000);
        const seen = web.seen.slice(before).map((s) => s.url);
        if ("problem" in checked) {
          expect({ path, statuses: statuses(text), seen }).toEqual({ path, statuses: [400], seen: [] });
          return;
        }
        expect({ path, seen }).toEqual({ path, seen: [`${checked.path}?q=%20`] });
        // A fixed point: the URL parser resolves nothing in it, and no escape stands for a character that needs none.
        expect(new URL(checked.path, "http://h").pathname).toBe(checked.path);
        expect(checked.path).not.toMatch(/%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[dDeE]|5[fF]|7[eE])|\/\/|[a-f0-9]%[0-9A-F][a-f]/);
      }),
      { seed: 48, numRuns: 300 },
    );
  });

  it("the known aliases pass on as the path they stand for", () => {
    for (const [sent, canonical] of [
      ["/api/./auth/login", "/api/auth/login"],
      ["/api/%2e/auth/%6cogin", "/api/auth/login"],
      ["//c//x", "/c/x"],
      ["/%61pi/auth/setup/.", "/api/auth/setup/"],
      ["/x/a%2fb/%c3%a9", "/x/a%2Fb/%C3%A9"],
    ])
      expect(checkTarget(sent)).toEqual({ path: canonical, query: "" });
    for (const sent of ["/c/../api/auth/login", "/c/%2e%2e/api", "/c/.%2E/x", "/.."])
      expect(checkTarget(sent)).toEqual({ problem: expect.any(String) });
  });
});

describe("half-closed clients", () => {
  /** Sends a request and half-closes at once (FIN after the last byte): the answer must still come. */
  const halfClosed = (bytes: string) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString("latin1");
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve(text));
      socket.end(bytes);
    });

  it("every kind of answer reaches a client that half-closed after its request", async () => {
    const cases: [string, number][] = [
      [request("GET /api/half HTTP/1.1\nHost: h"), 200],
      [request("POST /api/half HTTP/1.1\nHost: h\nContent-Length: 2", "{}"), 200],
      [request("GET /api/half HTTP/1.1\nHost: h\nConnection: close"), 200],
      [request("POST /v1/track HTTP/1.1\nHost: h\nContent-Type: application/json\nContent-Length: 2", "{}"), 401],
      [request("GET /a\\b HTTP/1.1\nHost: h"), 400],
      [request("GET /api/x HTTP/1.1\nHost: [bad"), 400],
      [request("OPTIONS * HTTP/1.1\nHost: h"), 204],
      [request("GET /api/half HTTP/1.1\nHost: h") + request("GET /api/half2 HTTP/1.1\nHost: h"), 200],
    ];
    for (const [bytes, status] of cases) {
      const answers = await Promise.all(Array.from({ length: 5 }, () => halfClosed(bytes)));
      for (const text of answers) expect({ bytes, status: statuses(text)[0] }).toEqual({ bytes, status });
    }
  });
});

describe("body limits, at, under and over (413 at once, connection closed)", () => {
  const limits: [string, number][] = [
    ["POST", WEB_BODY_BYTES],
    ["PUT", WEB_BODY_BYTES],
    ["PATCH", WEB_BODY_BYTES],
    ["DELETE", BODYLESS_BODY_BYTES],
    ["OPTIONS", BODYLESS_BODY_BYTES],
    ["GET", BODYLESS_BODY_BYTES],
    ["HEAD", BODYLESS_BODY_BYTES],
  ];
  const LAST = request("GET /after HTTP/1.1\nHost: h\nConnection: close");
  it.each(limits)("%s: %d bytes and one under pass, one over is refused", async (method, limit) => {
    for (const size of [limit - 1, limit]) {
      const before = web.seen.length;
      const r = await rawExchange(
        port,
        request(`${method} /api/size HTTP/1.1\nHost: h\nContent-Length: ${size}`, "x".repeat(size)) + LAST,
        2000,
      );
      expect(statuses(r.text)).toEqual([200, 200]);
      const got = web.seen.slice(before).find((s) => s.url === "/api/size")!;
      // GET and HEAD bodies are read and dropped: the web app never gets one.
      expect(got.body.length).toBe(method === "GET" || method === "HEAD" ? 0 : size);
    }
    const before = web.seen.length;
    const over = await rawExchange(port, request(`${method} /api/size HTTP/1.1\nHost: h\nContent-Length: ${limit + 1}`) + LAST, 2000);
    expect(statuses(over.text)).toEqual([413]);
    expect(over.closed).toBe(true);
    expect(web.seen.length).toBe(before);
  });

  it("a chunked upload is refused as soon as it passes the limit, while the client is still sending", async () => {
    const before = web.seen.length;
    // Over the limit by one chunk and no terminating chunk: the answer cannot wait for the end.
    const chunk = "x".repeat(64 * 1024);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(WEB_BODY_BYTES / chunk.length + 1);
    const r = await rawExchange(port, request("POST /api/big HTTP/1.1\nHost: h\nTransfer-Encoding: chunked", body), 2000);
    expect(statuses(r.text)).toEqual([413]);
    expect(r.closed).toBe(true);
    expect(web.seen.length).toBe(before);
  });

  // What a refusal costs is what the edge reads: the limit, the read that passed it, and a lingering
  // close's LINGER_BYTES after the answer — not what Node's parser takes while the body flows
  // (docs/decisions/0051-edge-under-abuse.md, 2026-12-07, what read the second megabyte).
  const BOUND = 256 * 1024;
  it.each([
    ["/api/destinations", WEB_BODY_BYTES, 413],
    ["/api/auth/login", LOGIN_BODY_BYTES, 413],
    ["/v1/batch", MAX_BODY_BYTES, 400],
  ])(
    "an endless chunked upload to %s is refused at its limit (%d bytes) and costs the edge under the limit + 256 KB read",
    async (path, limit, status) => {
      const r = await uploadWithoutEnd(
        request(`POST ${path} HTTP/1.1\nHost: h\nContent-Type: application/json\nTransfer-Encoding: chunked`),
        CHUNK_OF_1MB,
      );
      expect(statuses(r.answer)).toEqual([status]);
      expect(r.answer).toMatch(/"code":"(payload_too_large|body_too_large)"/);
      expect(r.accepted).toBeLessThan(24 * MB);
      expect(r.edgeRead, `${path}: ${r.edgeRead} bytes read`).toBeGreaterThan(limit);
      expect(r.edgeRead, `${path}: ${r.edgeRead} bytes read`).toBeLessThan(limit + BOUND);
    },
  );

  it.each([
    ["/api/destinations", 413],
    ["/v1/batch", 400],
  ])(
    "a body declared over the limit to %s is refused from its Content-Length: the edge reads a lingering close's worth of it",
    async (path, status) => {
      const r = await uploadWithoutEnd(
        request(`POST ${path} HTTP/1.1\nHost: h\nContent-Type: application/json\nContent-Length: ${64 * MB}`),
        RAW_1MB,
      );
      expect(statuses(r.answer)).toEqual([status]);
      expect(r.edgeRead, `${path}: ${r.edgeRead} bytes read`).toBeLessThan(BOUND);
    },
  );

  it.each([
    ["/api/destinations", WEB_BODY_BYTES, 413],
    ["/api/auth/login", LOGIN_BODY_BYTES, 413],
    ["/v1/batch", MAX_BODY_BYTES, 400],
  ])(
    "Expect: 100-continue with a length over the limit of %s (%d) gets the refusal alone, never 100 Continue",
    async (path, limit, status) => {
      const r = await rawExchange(
        port,
        request(`POST ${path} HTTP/1.1\nHost: h\nContent-Type: application/json\nExpect: 100-continue\nContent-Length: ${limit + 1}`),
        2000,
      );
      expect(statuses(r.text)).toEqual([status]);
    },
  );

  it.each(["/api/continue", "/v1/batch"])(
    "Expect: 100-continue within the limit of %s: 100 Continue first, then the answer to the body",
    async (path) => {
      const body = '{"batch":[]}';
      const socket = net.connect(port, "127.0.0.1");
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
      socket.write(
        request(
          `POST ${path} HTTP/1.1\nHost: h\nContent-Type: application/json\nExpect: 100-continue\nConnection: close\nContent-Length: ${body.length}`,
        ),
      );
      // The client waits for the 100 before it sends its body, as curl and Node's http client do.
      await expect.poll(() => statuses(text)).toEqual([100]);
      socket.end(body);
      await new Promise((r) => socket.once("close", r));
      const [continued, final] = statuses(text);
      expect(continued).toBe(100);
      expect(final).toBeGreaterThanOrEqual(200);
      expect(final).toBeLessThan(500);
    },
  );

  it("after a refusal the edge half-closes and lingers: until the client closes its side, LINGER_MS at most", async () => {
    for (const allowHalfOpen of [false, true]) {
      // allowHalfOpen: false closes on the edge's FIN, as clients do; true keeps its side open, silent.
      const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen });
      socket.on("error", () => {});
      await new Promise((r) => socket.once("connect", r));
      const clientPort = socket.localPort ?? 0;
      let answer = "";
      socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
      const fin = new Promise((r) => socket.once("end", r));
      socket.write(request(`POST /api/destinations HTTP/1.1\nHost: h\nContent-Length: ${64 * MB}`, "x".repeat(1024)));
      await fin;
      const answered = Date.now();
      expect(statuses(answer)).toEqual([413]);
      await expect.poll(() => readByEdge.has(clientPort), { timeout: LINGER_MS + 3_000 }).toBe(true);
      const lingered = Date.now() - answered;
      if (allowHalfOpen) expect(lingered).toBeGreaterThanOrEqual(LINGER_MS - 500);
      else expect(lingered).toBeLessThan(LINGER_MS / 2);
      expect(lingered).toBeLessThan(LINGER_MS + 2_000);
      socket.destroy();
    }
  });

  it("a client still sending after its 413, within the linger, is not reset: it reads the answer, then a clean end", async () => {
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    const errors: string[] = [];
    socket.on("error", (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    await new Promise((r) => socket.once("connect", r));
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    const closed = new Promise((r) => socket.once("close", r));
    socket.write(request(`POST /api/destinations HTTP/1.1\nHost: h\nContent-Length: ${2 * MB}`, "x".repeat(1024)));
    await new Promise((r) => socket.once("end", r));
    // More of the body after the answer and the edge's FIN, as a client busy sending does: a write to
    // a connection the edge has closed draws a reset, which the next write reports.
    for (let i = 0; i < 2; i++) {
      socket.write(Buffer.alloc(LINGER_BYTES / 4, "x"));
      await new Promise((r) => setTimeout(r, 200));
    }
    socket.end();
    await closed;
    expect(statuses(answer)).toEqual([413]);
    expect(errors).toEqual([]);
  });

  it("a client that sends a body over the limit in full still reads its 413, not a reset", async () => {
    // A Node client writes the whole declared body, reading the answer as it comes. The edge refuses
    // on the Content-Length, half-closes after the answer and lingers, so the answer is read before
    // the connection ends, whatever the body's size.
    for (const size of [LOGIN_BODY_BYTES + 1, WEB_BODY_BYTES + 1, WEB_BODY_BYTES + LINGER_BYTES * 4, 8 * MB]) {
      for (let i = 0; i < 10; i++) {
        const path = size === LOGIN_BODY_BYTES + 1 ? "/api/auth/login" : "/api/destinations";
        const got = await new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
          const req = http.request({ host: "127.0.0.1", port, method: "POST", path, headers: { "content-type": "application/json" } });
          req.on("response", (res) => {
            let body = "";
            res.on("data", (d: Buffer) => (body += d.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
            res.on("error", (e) => resolve({ error: `response: ${e.message}` }));
          });
          req.on("error", (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
          req.end(Buffer.alloc(size, "x"));
        });
        expect({ size, got }).toEqual({ size, got: { status: 413, body: expect.stringContaining("payload_too_large") } });
      }
    }
  });
});

describe("the login lane's limit: the web app's 4 KB, at the edge", () => {
  it("passes 4 KB and one byte under, refuses one byte over in the web app's words, declared or chunked", async () => {
    for (const path of ["/api/auth/login", "/api/auth/setup"]) {
      for (const size of [LOGIN_BODY_BYTES - 1, LOGIN_BODY_BYTES]) {
        const r = await rawExchange(
          port,
          request(`POST ${path} HTTP/1.1\nHost: h\nContent-Length: ${size}\nConnection: close`, "x".repeat(size)),
          2000,
        );
        expect(statuses(r.text)).toEqual([200]);
      }
      const before = web.seen.length;
      const over = "x".repeat(LOGIN_BODY_BYTES + 1);
      for (const framing of [`Content-Length: ${over.length}`, "Transfer-Encoding: chunked"]) {
        const body = framing.startsWith("Content") ? over : chunked(over);
        const r = await rawExchange(port, request(`POST ${path} HTTP/1.1\nHost: h\n${framing}`, body), 2000);
        expect(statuses(r.text)).toEqual([413]);
        expect(JSON.parse(r.text.slice(r.text.indexOf("\r\n\r\n") + 4)).error).toEqual({
          code: "payload_too_large",
          message: "Request body is larger than the 4 KB limit of this endpoint",
        });
        expect(r.closed).toBe(true);
      }
      expect(web.seen.length).toBe(before);
    }
  });

  it("a login uploaded without end costs the edge well under the 1 MB other web bodies may take", async () => {
    const r = await uploadWithoutEnd(request("POST /api/auth/login HTTP/1.1\nHost: h\nTransfer-Encoding: chunked"), CHUNK_OF_1MB);
    expect(statuses(r.answer)).toEqual([413]);
    // What the edge read of it, counted once its side closed.
    expect(r.edgeRead).toBeGreaterThan(LOGIN_BODY_BYTES);
    expect(r.edgeRead).toBeLessThan(WEB_BODY_BYTES);
  });
});

describe("what the web app receives", () => {
  it("every header but hop-by-hop and framing ones, X-Forwarded-For with the peer appended, the body with its own length", async () => {
    const before = web.seen.length;
    const r = await rawExchange(
      port,
      request(
        [
          "POST /api/headers?q=1 HTTP/1.1",
          "Host: eventrail.example",
          "X-Forwarded-For: 6.6.6.6",
          "X-Eventrail-Peer-Address: 7.7.7.7",
          "Connection: keep-alive, X-Drop-Me",
          "X-Drop-Me: 1",
          "Keep-Alive: timeout=1",
          "Proxy-Connection: keep-alive",
          "TE: trailers",
          "Upgrade: h2c",
          "Trailer: X-T",
          "Expect: 100-continue",
          "Cookie: er_session=abc",
          "Authorization: Bearer t",
          "Content-Type: application/json",
          "Transfer-Encoding: chunked",
          "Connection: close",
        ].join("\n"),
        chunked('{"a":1}'),
      ),
    );
    expect(statuses(r.text)).toEqual([100, 200].filter((s) => r.text.includes(`HTTP/1.1 ${s}`)));
    const got = web.seen.slice(before);
    expect(got).toHaveLength(1);
    const { connection, ...headers } = got[0].headers;
    // The edge's own connection to the web app is keep-alive (undici's pool), whatever the client said.
    expect(connection).toBe("keep-alive");
    expect(headers).toEqual({
      host: "eventrail.example",
      "x-forwarded-for": "6.6.6.6, 127.0.0.1",
      "x-eventrail-peer-address": "7.7.7.7",
      cookie: "er_session=abc",
      authorization: "Bearer t",
      "content-type": "application/json",
      "content-length": "7",
    });
    expect(got[0].url).toBe("/api/headers?q=1");
    expect(got[0].body.toString()).toBe('{"a":1}');
  });

  it("the query string as the client sent it: not decoded, re-encoded or reordered", async () => {
    const targets = ["/api/logs?messageId=a%20b+c&x=[1]&x=%5B2%5D&empty=&flag", "/api/logs?q=%E2%9C%93;a=b?c=d", "/login?"];
    for (const target of targets) {
      const before = web.seen.length;
      const r = await rawExchange(port, request(`GET ${target} HTTP/1.1\nHost: eventrail.example\nConnection: close`));
      expect(statuses(r.text)).toEqual([200]);
      const seen = web.seen.slice(before).map((s) => s.url);
      expect(seen).toEqual([target.endsWith("?") ? target.slice(0, -1) : target]);
    }
  });

  it("X-Forwarded-For is the peer alone when the client sent none; the answer's hop-by-hop headers stay behind", async () => {
    const before = web.seen.length;
    const r = await rawExchange(port, request("GET /api/plain HTTP/1.1\nHost: h\nConnection: close"));
    expect(web.seen.slice(before)[0].headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(r.text).toMatch(/set-cookie: a=1\r\nset-cookie: b=2/);
    expect(r.text.toLowerCase()).not.toContain("keep-alive: timeout=5");
    expect(r.text).toMatch(/x-web: 1/);
  });
});
