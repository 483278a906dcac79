import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, ApiClient, SETUP_CODE, startStack, type Stack } from "./harness/stack";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
});
afterAll(() => stack?.stop());

describe("sources API", () => {
  it("creates, lists, renames, rotates and deletes a source", async () => {
    const created = await a.post("/api/sources", { name: "Backend" });
    expect(created).toMatchObject({ name: "Backend", enabled: true });
    expect(created.writeKey).toMatch(/^[A-Za-z0-9]{32}$/);

    const { sources } = await a.get("/api/sources");
    expect(sources.map((s: { id: string }) => s.id)).toContain(created.id);

    const renamed = await a.patch(`/api/sources/${created.id}`, { name: "Backend (Go)" });
    expect(renamed.name).toBe("Backend (Go)");

    const rotated = await a.post(`/api/sources/${created.id}/rotate-key`);
    expect(rotated.writeKey).not.toBe(created.writeKey);
    expect((await a.get(`/api/sources/${created.id}`)).writeKey).toBe(rotated.writeKey);

    expect((await a.request("DELETE", `/api/sources/${created.id}`)).status).toBe(204);
    expect((await a.request("GET", `/api/sources/${created.id}`)).status).toBe(404);
  });

  it("answers 401 without credentials or with a bad token", async () => {
    const none = await fetch(`${stack.app.url}/api/sources`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: "unauthorized" } });
    const bad = await new ApiClient(stack.app.url, "er_not-a-real-token").request("GET", "/api/sources");
    expect(bad.status).toBe(401);
  });

  it("hides another workspace's sources (404), never lists them, and 404s malformed ids", async () => {
    const mine = await a.post("/api/sources", { name: "Mine" });
    for (const [method, path] of [
      ["GET", `/api/sources/${mine.id}`],
      ["PATCH", `/api/sources/${mine.id}`],
      ["DELETE", `/api/sources/${mine.id}`],
      ["POST", `/api/sources/${mine.id}/rotate-key`],
      ["GET", `/api/sources/${mine.id}/events`],
      ["GET", `/api/sources/not-a-uuid`],
      ["GET", `/api/sources/not-a-uuid/events`],
    ] as const) {
      const r = await b.request(method, path, method === "PATCH" ? { name: "stolen" } : undefined);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    const { sources } = await b.get("/api/sources");
    expect(sources.find((s: { id: string }) => s.id === mine.id)).toBeUndefined();
    expect((await a.get(`/api/sources/${mine.id}`)).name).toBe("Mine");
  });

  it("answers 422 with field errors on bad input and stores nothing", async () => {
    const before = (await a.get("/api/sources")).sources.length;
    const r = await a.request("POST", "/api/sources", { name: "" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.fields.name).toEqual(["Name is required"]);
    const long = await a.request("POST", "/api/sources", { name: "x".repeat(101) });
    expect(long.body.error.fields.name[0]).toMatch(/100/);
    const badJson = await fetch(`${stack.app.url}/api/sources`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(badJson.status).toBe(400);
    expect((await a.get("/api/sources")).sources.length).toBe(before);
  });

  it("refuses a revoked API token", async () => {
    const t = await a.post("/api/tokens", { name: "ci" });
    expect(t.token).toMatch(/^er_/);
    const viaToken = new ApiClient(stack.app.url, t.token);
    expect((await viaToken.request("GET", "/api/sources")).status).toBe(200);
    await a.del(`/api/tokens/${t.id}`);
    const after = await viaToken.request("GET", "/api/sources");
    expect(after.status).toBe(401);
    // The listing shows it revoked and never exposes the token value again.
    const { tokens } = await a.get("/api/tokens");
    const listed = tokens.find((x: { id: string }) => x.id === t.id);
    expect(listed.revokedAt).not.toBeNull();
    expect(JSON.stringify(tokens)).not.toContain(t.token);
  });

  it("lets the operator's admin token act on a named workspace only as told", async () => {
    const admin = new ApiClient(stack.app.url, ADMIN_TOKEN);
    const r = await fetch(`${stack.app.url}/api/sources`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-eventrail-workspace": b.workspaceId! },
    });
    expect(r.status).toBe(200);
    const nonAdmin = await a.request("POST", "/api/workspaces", { name: "sneaky" });
    expect(nonAdmin.status).toBe(403);
    expect((await admin.request("POST", "/api/workspaces", { name: "" })).status).toBe(422);
  });

  it("requires the CSRF token for cookie-authenticated changes, and refuses an expired session", async () => {
    // A session cookie from the first-run setup of this fresh database.
    const setup = await fetch(`${stack.app.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", password: "a long password", code: SETUP_CODE }),
    });
    expect(setup.status).toBe(201);
    const cookies = setup.headers.getSetCookie().map((c) => c.split(";")[0]);
    const csrf = cookies.find((c) => c.startsWith("er_csrf="))!.split("=")[1];
    const cookie = cookies.join("; ");
    const noCsrf = await fetch(`${stack.app.url}/api/sources`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: '{"name":"x"}',
    });
    expect(noCsrf.status).toBe(403);
    const withCsrf = await fetch(`${stack.app.url}/api/sources`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-csrf-token": csrf },
      body: '{"name":"x"}',
    });
    expect(withCsrf.status).toBe(201);

    // Once the session has expired (docs/management-api.md#sessions), its cookie is refused by the
    // API and the dashboard alike, however valid the token in it.
    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    await db.query(`UPDATE sessions SET expires_at = now() - interval '1 second'`).finally(() => db.end());
    expect((await fetch(`${stack.app.url}/api/sources`, { headers: { cookie } })).status).toBe(401);
    const page = await fetch(`${stack.app.url}/sources`, { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBe(307);
    expect(new URL(page.headers.get("location")!, stack.app.url).pathname).toBe("/login");
    // A second setup is refused once the owner exists.
    const again = await fetch(`${stack.app.url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "other@example.com", password: "a long password", code: SETUP_CODE }),
    });
    expect(again.status).toBe(409);
  });

  it("answers /api/health publicly", async () => {
    const r = await fetch(`${stack.app.url}/api/health`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ok: true, database: "ok", queue: "ok" });
  });
});
