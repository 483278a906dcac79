import { afterEach, describe, expect, it, vi } from "vitest";
import { audienceRoutes } from "@/lib/audiences/routes";
import { captureRoutes } from "@/lib/capture/routes";
import { sourceRoutes } from "@/lib/sources/routes";
import { ApiError, call } from "./api-client";

function answer(status: number, body?: unknown) {
  const fetch = vi.fn(
    async (_path: string, _init: RequestInit) => new Response(body === undefined ? null : JSON.stringify(body), { status }),
  );
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

afterEach(() => vi.unstubAllGlobals());

describe("call(route)", () => {
  it("fills the path parameters, URL-encoded, and adds the query string", async () => {
    const fetch = answer(200, { events: [] });
    await expect(call(sourceRoutes.events, { params: { id: "a b/c" }, query: { limit: 100 } })).resolves.toEqual({ events: [] });
    const [path, init] = fetch.mock.calls[0];
    expect(path).toBe("/api/sources/a%20b%2Fc/events?limit=100");
    expect(init.method).toBe("GET");
    expect(init.body).toBeUndefined();
  });

  it("leaves unset and empty query values off the query string, keeping the others in order", async () => {
    const fetch = answer(200, { members: [], nextCursor: null });
    await call(audienceRoutes.members, { params: { id: "a1" }, query: { limit: 50, q: "", cursor: undefined } });
    await call(audienceRoutes.members, { params: { id: "a1" }, query: { limit: 50, q: "ann", cursor: "c1" } });
    expect(fetch.mock.calls.map(([path]) => path)).toEqual([
      "/api/audiences/a1/members?limit=50",
      "/api/audiences/a1/members?limit=50&q=ann&cursor=c1",
    ]);
    const captured = answer(200, { requests: [] });
    await call(captureRoutes.requests, { params: { id: "b1" }, query: { after: undefined } });
    expect(captured.mock.calls[0][0]).toBe("/api/capture-bins/b1/requests");
  });

  it("sends the endpoint's method with a JSON body, and passes the abort signal", async () => {
    const fetch = answer(201, { id: "s1" });
    const signal = new AbortController().signal;
    await call(sourceRoutes.create, { body: { name: "Backend" }, signal });
    const [path, init] = fetch.mock.calls[0];
    expect(path).toBe("/api/sources");
    expect(init).toMatchObject({ method: "POST", body: JSON.stringify({ name: "Backend" }), signal });
    expect(init.headers).toMatchObject({ "content-type": "application/json" });
  });

  it("resolves to undefined on 204 and throws ApiError with the field errors otherwise", async () => {
    answer(204);
    await expect(call(sourceRoutes.remove, { params: { id: "s1" } })).resolves.toBeUndefined();
    answer(422, { error: { code: "validation_failed", message: "Invalid", fields: { name: ["Name is required"] } } });
    const err = await call(sourceRoutes.create, { body: { name: "" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 422, code: "validation_failed", fields: { name: ["Name is required"] } });
  });

  it("needs every path parameter", async () => {
    answer(200, {});
    // @ts-expect-error params are required for /api/sources/{id}
    await expect(call(sourceRoutes.get, {})).rejects.toThrow("missing path parameter id");
  });
});
