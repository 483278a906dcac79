import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { ApiClient, startStack, type Stack } from "./harness/stack";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
});
afterAll(() => stack?.stop());

const requestsOf = async (client: ApiClient, id: string, after?: string) =>
  (await client.get(`/api/capture-bins/${id}/requests${after ? `?after=${after}` : ""}`)).requests as any[];

describe("capture receiver", () => {
  it("stores method, path, query, headers and body of any request, without authentication", async () => {
    const bin = await a.post("/api/capture-bins", { name: "orders" });
    expect(bin).toMatchObject({ name: "orders", responseStatus: 200, responseDelayMs: 0, requestCount: 0, path: `/c/${bin.id}` });
    expect(bin.url).toBe(`${stack.app.url}/c/${bin.id}`);

    const body = JSON.stringify({ type: "track", event: "Order Completed", note: "naïve ✓" });
    const res = await fetch(`${stack.app.url}/c/${bin.id}/hooks/orders?a=1&b=two`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": "abc123", "x-custom": "yes" },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ captured: true });

    for (const method of ["GET", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]) {
      const r = await fetch(`${stack.app.url}/c/${bin.id}`, { method });
      expect(r.status, method).toBe(200);
    }

    const requests = await requestsOf(a, bin.id);
    expect(requests.map((r) => r.method)).toEqual(["HEAD", "OPTIONS", "DELETE", "PATCH", "PUT", "GET", "POST"]);
    const post = requests.at(-1);
    // The list carries a preview of each body; opening one fetches it whole, with its headers.
    expect(post).toMatchObject({
      method: "POST",
      path: `/c/${bin.id}/hooks/orders`,
      query: "a=1&b=two",
      contentType: "application/json",
      preview: body,
      previewCut: false,
      bodySize: Buffer.byteLength(body),
      truncated: false,
      signed: { xSignature: true, standardWebhooks: false },
    });
    const full = await a.get(`/api/capture-bins/${bin.id}/requests/${post.id}`);
    expect(full).toMatchObject({ body, bodyEncoding: "utf8" });
    expect(full.headers).toMatchObject({ "content-type": "application/json", "x-signature": "abc123", "x-custom": "yes" });
    expect((await a.get(`/api/capture-bins/${bin.id}`)).requestCount).toBe(7);
  });

  it("polls only what arrived after a given id", async () => {
    const bin = await a.post("/api/capture-bins", {});
    await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "one" });
    const [first] = await requestsOf(a, bin.id);
    expect(await requestsOf(a, bin.id, first.id)).toEqual([]);
    await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "two" });
    await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "three" });
    expect((await requestsOf(a, bin.id, first.id)).map((r) => r.preview)).toEqual(["three", "two"]);
  });

  it("answers with the bin's configured status and delay", async () => {
    const bin = await a.post("/api/capture-bins", {});
    const updated = await a.patch(`/api/capture-bins/${bin.id}`, { responseStatus: 503, responseDelayMs: 1200 });
    expect(updated).toMatchObject({ responseStatus: 503, responseDelayMs: 1200 });
    const started = Date.now();
    const res = await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "{}" });
    expect(res.status).toBe(503);
    // The delay is a lower bound the receiver guarantees; no upper bound is asserted on a busy machine.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);

    await a.patch(`/api/capture-bins/${bin.id}`, { responseStatus: 204, responseDelayMs: 0 });
    const noContent = await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "{}" });
    expect(noContent.status).toBe(204);
    expect(await noContent.text()).toBe("");
  });

  it("refuses invalid settings with field errors and keeps the old ones", async () => {
    const bin = await a.post("/api/capture-bins", {});
    const bad = await a.request("PATCH", `/api/capture-bins/${bin.id}`, { responseStatus: 99, responseDelayMs: -5 });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["responseDelayMs", "responseStatus"]);
    expect((await a.request("PATCH", `/api/capture-bins/${bin.id}`, { responseDelayMs: 60_000 })).status).toBe(422);
    expect(await a.get(`/api/capture-bins/${bin.id}`)).toMatchObject({ responseStatus: 200, responseDelayMs: 0 });
  });

  it("answers 404, not 500, to ids that cannot be capture ids, NUL bytes included", async () => {
    for (const id of ["x%00y", "not-a-bin", "ABCDEFGHIJKLMNOPQRSTUVWX"]) {
      const bin = `/api/capture-bins/${id}`;
      for (const [method, path] of [
        ["GET", bin],
        ["PATCH", bin],
        ["DELETE", bin],
        ["GET", `${bin}/requests`],
        ["DELETE", `${bin}/requests`],
      ]) {
        const res = await a.request(method, path, method === "PATCH" ? { name: "n" } : undefined);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      }
      expect((await fetch(`${stack.app.url}/c/${id}`, { method: "POST", body: "{}" })).status).toBe(404);
    }
  });

  it("caps the stored body at 1 MB and marks it truncated", async () => {
    const bin = await a.post("/api/capture-bins", {});
    const big = "x".repeat(1024 * 1024 + 5000);
    expect((await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: big })).status).toBe(200);
    const [r] = await requestsOf(a, bin.id);
    expect(r.truncated).toBe(true);
    expect(r.bodySize).toBe(big.length);
    expect((await a.get(`/api/capture-bins/${bin.id}/requests/${r.id}`)).body.length).toBe(1024 * 1024);
  });

  it("keeps only the newest 500 requests of a bin", async () => {
    const bin = await a.post("/api/capture-bins", {});
    // Seed 520 rows directly (the HTTP path is covered above), then one real request prunes.
    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO captured_requests (bin_id, method, path, query, headers, body, body_size)
         SELECT $1, 'POST', '/c/' || $1, '', '{}', convert_to('seed ' || g, 'UTF8'), 6 FROM generate_series(1, 520) g`,
        [bin.id],
      );
    } finally {
      await db.end();
    }
    await fetch(`${stack.app.url}/c/${bin.id}`, { method: "POST", body: "newest" });
    expect((await a.get(`/api/capture-bins/${bin.id}`)).requestCount).toBe(500);
    const kept = (await a.get(`/api/capture-bins/${bin.id}/requests?limit=500`)).requests;
    expect(kept.length).toBe(500);
    expect(kept[0].preview).toBe("newest");
    expect(kept.at(-1).preview).toBe("seed 22");
    // The default page is the newest 100.
    expect((await requestsOf(a, bin.id)).length).toBe(100);
  });

  it("answers 404 for an unknown bin and stores nothing", async () => {
    const res = await fetch(`${stack.app.url}/c/nosuchbin00000000000000`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
  });

  it("scopes the API to the workspace and requires credentials", async () => {
    const mine = await a.post("/api/capture-bins", { name: "private" });
    await fetch(`${stack.app.url}/c/${mine.id}`, { method: "POST", body: "secret payload" });
    for (const [method, path, body] of [
      ["GET", `/api/capture-bins/${mine.id}`],
      ["PATCH", `/api/capture-bins/${mine.id}`, { responseStatus: 500 }],
      ["GET", `/api/capture-bins/${mine.id}/requests`],
      ["DELETE", `/api/capture-bins/${mine.id}/requests`],
      ["DELETE", `/api/capture-bins/${mine.id}`],
    ] as const) {
      expect((await b.request(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await b.get("/api/capture-bins")).bins.find((x: { id: string }) => x.id === mine.id)).toBeUndefined();
    expect((await fetch(`${stack.app.url}/api/capture-bins`)).status).toBe(401);
    expect((await fetch(`${stack.app.url}/api/capture-bins/${mine.id}/requests`)).status).toBe(401);
    expect(await a.get(`/api/capture-bins/${mine.id}`)).toMatchObject({ requestCount: 1, responseStatus: 200 });

    // Clearing and deleting by the owner works; the receiver then answers 404.
    await a.del(`/api/capture-bins/${mine.id}/requests`);
    expect(await requestsOf(a, mine.id)).toEqual([]);
    await a.del(`/api/capture-bins/${mine.id}`);
    expect((await fetch(`${stack.app.url}/c/${mine.id}`, { method: "POST" })).status).toBe(404);
  });

  it("masks header values for a read-only token, as reveal refuses it, and shows them to a full token", async () => {
    const bin = await a.post("/api/capture-bins", { name: "roles" });
    const token = "Bearer sk_live_0123456789abcdefWXYZ";
    await fetch(`${stack.app.url}/c/${bin.id}/hook`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token, "x-tenant": "acme", "x-signature": "abc123" },
      body: "{}",
    });
    const [req] = await requestsOf(a, bin.id);
    const reader = new ApiClient(stack.app.url, (await a.post("/api/tokens", { name: "reader", scope: "read" })).token);
    const seen = await reader.get(`/api/capture-bins/${bin.id}/requests/${req.id}`);
    expect(JSON.stringify(seen)).not.toContain("sk_live");
    expect(JSON.stringify(seen)).not.toContain("acme");
    expect(seen.headers).toMatchObject({
      authorization: "••••WXYZ",
      "x-tenant": "••••",
      "x-signature": "abc123",
      "content-type": "application/json",
    });
    expect(seen.body).toBe("{}");
    const full = await a.get(`/api/capture-bins/${bin.id}/requests/${req.id}`);
    expect(full.headers).toMatchObject({ authorization: token, "x-tenant": "acme" });
  });
});
