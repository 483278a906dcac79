/**
 * The edge fuzzed where it parses untrusted input (issue 48, docs/edge.md#hosts-and-targets): Host
 * values, targets, query strings and header values, generated from a fixed seed, each sent on a
 * connection of its own to the edge in front of `next start`, as `npm start` runs them. Whatever
 * the input, the answer is not a 5xx, nothing is logged at error, and afterwards the dashboard
 * answers as before. EDGE_FUZZ_RUNS sets the cases per class (default 500).
 */
import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IngestStack, startIngestStack } from "./harness/ingest-stack";
import { waitFor } from "./harness/stack";
import { createSource, postTracking, type TestSource } from "./harness/tracking";

const SEED = 48;
const RUNS = Number(process.env.EDGE_FUZZ_RUNS ?? 500);

let s: IngestStack;
let src: TestSource;
let port: number;
beforeAll(async () => {
  s = await startIngestStack("edge-fuzz");
  src = await createSource(s.api, "edge-fuzz");
  port = Number(new URL(s.ingest.url).port);
  // /api/health is 200 (not the web app's own 503) once the first stored call has installed pg-boss's schema.
  const first = await postTracking(s.ingest.url, "/v1/track", { type: "track", event: "E", userId: "u" }, { writeKey: src.writeKey });
  expect(first.status).toBe(200);
  await waitFor(async () => (await fetch(`${s.ingest.url}/api/health`)).status === 200, { what: "/api/health to answer 200" });
});
afterAll(() => s?.stop());

/** One request on a connection of its own: the answer's status, or null when none came in 5 s. */
function statusOf(request: string): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      resolve(m ? Number(m[1]) : null);
    });
    socket.write(Buffer.from(request, "latin1"));
  });
}

type Case = { method: string; target: string; headers: [string, string][] };

const send = ({ method, target, headers }: Case) =>
  statusOf(
    `${method} ${target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join("")}${
      method === "POST" ? "Content-Length: 0\r\n" : ""
    }Connection: close\r\n\r\n`,
  );

/** Every answer is something other than a 5xx. */
async function expectNo5xx(cases: fc.Arbitrary<Case>) {
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const status = await send(c);
      expect({ ...c, answered: status !== null, serverError: status !== null && status >= 500 }).toEqual({
        ...c,
        answered: true,
        serverError: false,
      });
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
}

/** The dashboard answers: more requests in a row than the edge keeps connections to the web app. */
async function expectDashboardAnswers() {
  for (let i = 0; i < 12; i++) {
    const started = performance.now();
    const health = await fetch(`${s.ingest.url}/api/health`, { signal: AbortSignal.timeout(10_000) });
    expect(await health.json()).toMatchObject({ database: "ok" });
    expect(performance.now() - started).toBeLessThan(2_000);
  }
  expect(s.ingest.output()).not.toMatch(/"level":50/);
  expect(s.ingest.output()).not.toMatch(/web app unreachable/);
}

const chars = (set: string) => fc.constantFrom(...set.split(""));
/** Any byte a header value can hold on the wire: all of Latin-1 but CR and LF. */
const headerValue = fc.string({
  unit: fc
    .integer({ min: 0, max: 255 })
    .filter((c) => c !== 10 && c !== 13)
    .map((c) => String.fromCharCode(c)),
  maxLength: 40,
});
const hostLike = fc.string({
  unit: fc.oneof(chars("abcz09.-_:[]"), chars("\"',;@/\\%#?<>{}|^`~ \t!$&()*+="), fc.constantFrom("::1", "127.0.0.1", "example.com")),
  maxLength: 24,
});
const paths = fc.constantFrom(
  "/",
  "/login",
  "/api/health",
  "/api/sources",
  "/api/logs",
  "/c/fuzz",
  "/nope",
  "/v1/track",
  "/v1/projects/KEY/settings",
  "/analytics.js/v1/KEY/analytics.min.js",
);
const targetPiece = fc.oneof(
  chars("abc/.-_~0123456789"),
  chars("\\%?#[]@:;=&+$,'\"<>{}|^`!*()"),
  fc.constantFrom("%zz", "%2e", "%2E%2E", "%00", "%E0%A4", "%C3%A9", "..", "//", "\u00e9", "\u00ff", "%%", "%2f", "%5c"),
);
const methods = fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "OPTIONS", "DELETE");
const withKey = (path: string) => path.replace("KEY", src.writeKey);

describe("the edge, fuzzed", () => {
  it("Host values", async () => {
    await expectNo5xx(
      fc.record({
        method: methods,
        target: paths.map(withKey),
        headers: fc.oneof(hostLike, headerValue).map((host): [string, string][] => [["Host", host]]),
      }),
    );
    await expectDashboardAnswers();
  });

  it("targets", async () => {
    await expectNo5xx(
      fc.record({
        method: methods,
        target: fc.tuple(paths, fc.string({ unit: targetPiece, maxLength: 8 })).map(([p, tail]) => withKey(p) + tail),
        headers: fc.constant<[string, string][]>([["Host", "eventrail.example"]]),
      }),
    );
    await expectDashboardAnswers();
  });

  it("query strings", async () => {
    await expectNo5xx(
      fc.record({
        method: methods,
        target: fc
          .tuple(
            fc.constantFrom("/api/logs", "/api/health", "/login", "/v1/projects/KEY/settings", "/c/fuzz"),
            fc.string({ unit: targetPiece, maxLength: 12 }),
          )
          .map(([p, q]) => `${withKey(p)}?messageId=${q}`),
        headers: fc.constant<[string, string][]>([["Host", "eventrail.example"]]),
      }),
    );
    await expectDashboardAnswers();
  });

  it("header values", async () => {
    const names = fc.constantFrom(
      "User-Agent",
      "Cookie",
      "Authorization",
      "X-Forwarded-For",
      "X-Forwarded-Proto",
      "X-Forwarded-Host",
      "Content-Type",
      "Accept",
      "Accept-Encoding",
      "Accept-Language",
      "Origin",
      "Referer",
      "If-None-Match",
      "Range",
      "X-Request-Id",
      "RSC",
      "Next-Router-State-Tree",
      "Next-Action",
    );
    await expectNo5xx(
      fc.record({
        method: methods,
        target: paths.map(withKey),
        headers: fc
          .array(fc.tuple(names, headerValue), { minLength: 1, maxLength: 3 })
          .map((h): [string, string][] => [["Host", "eventrail.example"], ...h]),
      }),
    );
    await expectDashboardAnswers();
  });
});
