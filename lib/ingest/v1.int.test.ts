/**
 * What every Segment client meets at /v1 before lib/tracking reads a byte (docs/edge.md#routes): CORS
 * preflights answered by the edge on any origin, CORS on error answers, the short paths and
 * trailing slashes routed (not 404, not 308), /v1/m dropped, and errors Segment's libraries can
 * read (`code` and `message` at the top level). The edge alone, no web app: it then serves /v1 only.
 * The answers that need a database (stored calls) are in test/edge.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAll, rawExchange, request, startEdge, statuses } from "../../test/harness/edge";
import { CORS_MAX_AGE_SECONDS, ENDPOINT_BY_NAME } from "./tracking-routes";

let base: string;
let port: number;
beforeAll(async () => {
  ({ port } = await startEdge({ webUrl: null }));
  base = `http://127.0.0.1:${port}`;
});
afterAll(closeAll);

const preflight = (path: string) =>
  fetch(`${base}${path}`, {
    method: "OPTIONS",
    headers: {
      origin: "https://shop.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type,authorization",
    },
  });

describe("CORS", () => {
  it.each(["/v1/t", "/v1/i", "/v1/p", "/v1/s", "/v1/g", "/v1/a", "/v1/b", "/v1/m", "/v1/track", "/v1/batch/", "/v1/import"])(
    "a preflight to %s is answered by the edge: any origin, Content-Type and Authorization, POST, a max-age",
    async (path) => {
      const res = await preflight(path);
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase().split(/,\s*/)).toEqual(["content-type", "authorization"]);
      expect(res.headers.get("access-control-max-age")).toBe(String(CORS_MAX_AGE_SECONDS));
    },
  );

  it("the settings and bundle paths answer preflights and carry CORS on their GET answers", async () => {
    for (const path of ["/v1/projects/wk/settings", "/analytics.js/v1/wk/analytics.min.js"]) {
      expect((await preflight(path)).headers.get("access-control-allow-origin")).toBe("*");
      const res = await fetch(`${base}${path}`, { headers: { origin: "https://shop.example" } });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  it("error answers carry CORS too, with code and message at the top level", async () => {
    const notFound = await fetch(`${base}/v1/nope`, { method: "POST", body: "{}", headers: { origin: "https://shop.example" } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("access-control-allow-origin")).toBe("*");
    expect(await notFound.json()).toMatchObject({ success: false, code: "not_found", message: expect.stringContaining("/v1/nope") });
    const wrongMethod = await fetch(`${base}/v1/t`, { headers: { origin: "https://shop.example" } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("OPTIONS, POST");
    expect(wrongMethod.headers.get("access-control-allow-origin")).toBe("*");
    expect(await wrongMethod.json()).toMatchObject({ success: false, code: "method_not_allowed", message: expect.any(String) });
  });
});

describe("paths", () => {
  it("names every short path as its long endpoint, and /v1/import as batch", () => {
    expect(ENDPOINT_BY_NAME).toMatchObject({
      t: "track",
      i: "identify",
      p: "page",
      s: "screen",
      g: "group",
      a: "alias",
      b: "batch",
      import: "batch",
    });
  });

  it("/v1/m, the browser library's telemetry, is accepted and dropped, with or without a trailing slash", async () => {
    for (const path of ["/v1/m", "/v1/m/"]) {
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        body: JSON.stringify({ series: [] }),
        headers: { origin: "https://a.example" },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  it("/v1/m reads its body, so the connection carries the next call", async () => {
    const call = request("POST /v1/m HTTP/1.1\nHost: h\nContent-Type: text/plain\nContent-Length: 13", '{"series":[]}');
    const r = await rawExchange(port, call + call);
    expect(statuses(r.text)).toEqual([200, 200]);
    expect(r.text.toLowerCase()).not.toContain("connection: close");
  });

  it("an empty Content-Type is no Content-Type: the call reaches lib/tracking (401 without a key), not a 415", async () => {
    for (const head of ["Content-Type:", "Content-Type:  ", ""]) {
      const r = await rawExchange(
        port,
        request(`POST /v1/track HTTP/1.1\nHost: h\n${head ? `${head}\n` : ""}Content-Length: 2\nConnection: close`, "{}"),
      );
      expect({ head, statuses: statuses(r.text) }).toEqual({ head, statuses: [401] });
    }
  });

  it("a trailing slash is the same path, not a redirect", async () => {
    const res = await fetch(`${base}/v1/nope/`, { method: "POST", body: "{}", redirect: "manual" });
    expect(res.status).toBe(404);
    const wrong = await fetch(`${base}/v1/batch/`, { redirect: "manual" });
    expect(wrong.status).toBe(405);
  });

  it("without a web app, every other path is a JSON 404 from the edge", async () => {
    const res = await fetch(`${base}/api/sources`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: "Not found" } });
  });
});
