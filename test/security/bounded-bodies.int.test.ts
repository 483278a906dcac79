// Issue 12 item 1: one request must not kill the service. Management API bodies are refused with 413
// before they are buffered past their limit (docs/management-api.md#limits): 4 KB on the auth
// endpoints, 1 MB elsewhere; passwords have a maximum length.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonOfBytes, postChunked, utf8Bytes } from "../harness/exact-bodies";
import { startStack, type ApiClient, type Stack } from "../harness/stack";
import { rssMb, streamHugeBody } from "../harness/streaming";

let stack: Stack;
let api: ApiClient;

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  api = await stack.newWorkspace("bodies");
});
afterAll(() => stack?.stop());

const MB = 1024 * 1024;

async function healthMs(): Promise<number> {
  const t = performance.now();
  const r = await fetch(`${stack.app.url}/api/health`);
  expect(r.status).toBe(200);
  return performance.now() - t;
}

describe("bounded reads", () => {
  it("answers a 200 MB login password with 413 at once, without growing the process, declared or chunked", async () => {
    const pid = stack.app.child.pid!;
    const before = await rssMb(pid);
    for (const declareLength of [true, false]) {
      const res = await streamHugeBody({
        url: `${stack.app.url}/api/auth/login`,
        totalBytes: 200 * MB,
        declareLength,
        prefix: '{"email":"a@example.com","password":"',
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error).toEqual({
        code: "payload_too_large",
        message: "Request body is larger than the 4 KB limit of this endpoint",
      });
      expect(res.ms).toBeLessThan(5_000);
      // Refused long before the 200 MB were sent.
      expect(res.bytesSent).toBeLessThan(50 * MB);
    }
    expect(await healthMs()).toBeLessThan(1_000);
    expect((await rssMb(pid)) - before).toBeLessThan(100);
  });

  it("refuses a 20 MB Management API body with 413 naming the 1 MB limit, streamed or declared", async () => {
    for (const declareLength of [true, false]) {
      const res = await streamHugeBody({
        url: `${stack.app.url}/api/sources`,
        totalBytes: 20 * MB,
        declareLength,
        headers: { authorization: `Bearer ${api.token}` },
        prefix: '{"name":"',
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.message).toBe("Request body is larger than the 1 MB limit of this endpoint");
    }
    // A 2 MB test-send payload is refused the same way, and nothing was created meanwhile.
    const payload = { type: "track", event: "big", userId: "u", properties: { blob: "x".repeat(2 * MB) } };
    const dest = await api.post<{ id: string }>("/api/destinations", { name: "d", urls: ["http://127.0.0.1:9/hook"] });
    const big = await api.request("POST", `/api/destinations/${dest.id}/test`, payload);
    expect(big.status).toBe(413);
    expect((await api.get<{ sources: unknown[] }>("/api/sources")).sources).toEqual([]);
    expect(await healthMs()).toBeLessThan(1_000);
  });

  it("takes a Management API body of exactly 1 MB and one byte under, and refuses one byte over, declared or chunked", async () => {
    const headers = { authorization: `Bearer ${api.token}`, "content-type": "application/json" };
    for (const chunked of [false, true]) {
      for (const [bytes, status] of [
        [MB - 1, 201],
        [MB, 201],
        [MB + 1, 413],
      ] as const) {
        const name = `sized-${bytes}-${chunked}`;
        const body = jsonOfBytes({ name }, bytes);
        expect(utf8Bytes(body)).toBe(bytes);
        const res = chunked
          ? await postChunked(`${stack.app.url}/api/sources`, body, headers)
          : await fetch(`${stack.app.url}/api/sources`, { method: "POST", headers, body }).then(async (r) => ({
              status: r.status,
              body: await r.json(),
            }));
        expect(res.status, `${bytes} bytes${chunked ? ", chunked" : ""}`).toBe(status);
        if (status === 413) expect(res.body.error.message).toBe("Request body is larger than the 1 MB limit of this endpoint");
        else expect(res.body.name).toBe(name);
      }
    }
  });

  it("takes an auth body of exactly 4 KB and one byte under, and refuses one byte over, declared or chunked", async () => {
    const headers = { "content-type": "application/json" };
    for (const chunked of [false, true]) {
      for (const [bytes, status] of [
        [4095, 401],
        [4096, 401],
        [4097, 413],
      ] as const) {
        // A new address each time: these are wrong passwords, which the login throttle counts per account.
        const body = jsonOfBytes({ email: `sized-${bytes}-${chunked}@example.com`, password: "not the password" }, bytes);
        expect(utf8Bytes(body)).toBe(bytes);
        const res = chunked
          ? await postChunked(`${stack.app.url}/api/auth/login`, body, headers)
          : await fetch(`${stack.app.url}/api/auth/login`, { method: "POST", headers, body }).then(async (r) => ({
              status: r.status,
              body: await r.json(),
            }));
        expect(res.status, `${bytes} bytes${chunked ? ", chunked" : ""}`).toBe(status);
        if (status === 413) expect(res.body.error.message).toBe("Request body is larger than the 4 KB limit of this endpoint");
      }
    }
  });

  it("accepts bodies under the limit as before", async () => {
    const created = await api.request("POST", "/api/sources", { name: `s${"x".repeat(50)}` });
    expect(created.status).toBe(201);
  });

  it("limits passwords to 256 characters, at login and setup", async () => {
    const login = await fetch(`${stack.app.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@example.com", password: "p".repeat(257) }),
    });
    expect(login.status).toBe(422);
    expect((await login.json()).error.fields).toEqual({ password: ["Use at most 256 characters"] });
    const setup = await fetch(`${stack.app.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@example.com", password: "p".repeat(257) }),
    });
    expect(setup.status).toBe(422);
    expect((await setup.json()).error.fields.password).toEqual(["Use at most 256 characters"]);
  });
});
