// Destinations management API (docs/management-api.md), "Send test", and the attempt log API.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type ApiClient, type Stack } from "./harness/stack";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;
let rx: Receiver;
let sourceA: string;
let sourceB: string;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  sourceA = (await a.post("/api/sources", { name: "Web" })).id;
  sourceB = (await b.post("/api/sources", { name: "Other" })).id;
  rx = await startReceiver((req) =>
    req.path.startsWith("/fail")
      ? { status: 500, body: "nope" }
      : { status: 200, body: '{"ok":true}', headers: { "content-type": "application/json" } },
  );
});
afterAll(async () => {
  await rx?.close();
  await stack?.stop();
});

describe("destinations CRUD", () => {
  it("creates with defaults, lists, reads, patches and deletes", async () => {
    const created = await a.post("/api/destinations", { name: "Warehouse", urls: [`${rx.url}/hook`], sourceIds: [sourceA] });
    expect(created).toMatchObject({
      name: "Warehouse",
      urls: [`${rx.url}/hook`],
      headers: [],
      sharedSecret: { set: false, last4: null },
      standardWebhooks: false,
      standardSecret: { set: false, last4: null },
      enabled: true,
      mode: "any",
      retryWindowMinutes: 240,
      sourceIds: [sourceA],
    });
    expect(created.createdAt).toMatch(/Z$/);
    expect((await a.get("/api/destinations")).destinations.map((d: any) => d.id)).toContain(created.id);
    expect((await a.get(`/api/destinations/${created.id}`)).name).toBe("Warehouse");

    const patched = await a.patch(`/api/destinations/${created.id}`, {
      mode: "every",
      sharedSecret: "k",
      standardWebhooks: true,
      sourceIds: [],
    });
    expect(patched).toMatchObject({
      mode: "every",
      sharedSecret: { set: true, last4: null },
      standardWebhooks: true,
      sourceIds: [],
      name: "Warehouse",
    });
    // Generated when signing is switched on; write-only, so only its hint is in the answer.
    expect(patched.standardSecret).toEqual({ set: true, last4: expect.stringMatching(/^.{4}$/) });
    const generated = (await a.post(`/api/destinations/${created.id}/reveal`, { secret: "standardSecret" })).value;
    expect(generated).toMatch(/^whsec_/);
    const again = await a.patch(`/api/destinations/${created.id}`, { name: "Renamed" });
    expect(again.standardSecret).toEqual(patched.standardSecret);
    expect((await a.post(`/api/destinations/${created.id}/reveal`, { secret: "standardSecret" })).value).toBe(generated);
    // The old flag is still accepted: false switches signing off, and the secret goes with it.
    const off = await a.patch(`/api/destinations/${created.id}`, { standardWebhooks: false });
    expect(off).toMatchObject({ standardWebhooks: false, standardSecret: { set: false, last4: null } });
    // A secret alone switches Standard Webhooks on, and a test-send is signed with it.
    const whsec = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    const bySecret = await a.post("/api/destinations", { name: "Secret only", urls: [`${rx.url}/hook`], standardSecret: whsec });
    expect(bySecret).toMatchObject({ standardWebhooks: true, standardSecret: { set: true } });
    const n = rx.requests.length;
    await a.post(`/api/destinations/${bySecret.id}/test`, { type: "track" });
    expect(rx.requests[n].headers["webhook-signature"]).toMatch(/^v1,/);

    expect((await a.request("DELETE", `/api/destinations/${created.id}`)).status).toBe(204);
    expect((await a.request("GET", `/api/destinations/${created.id}`)).status).toBe(404);
  });

  it("refuses invalid settings with field errors and saves nothing", async () => {
    const before = (await a.get("/api/destinations")).destinations.length;
    const res = await a.request("POST", "/api/destinations", {
      name: "Bad",
      urls: ["https://ok.example/hook", "not a url"],
      headers: [{ name: "X-Signature", value: "forged" }],
      sharedSecret: "x".repeat(300),
      retryWindowMinutes: 0,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("validation_failed");
    expect(Object.keys(res.body.error.fields).sort()).toEqual(["headers.0.name", "retryWindowMinutes", "sharedSecret", "urls.1"]);
    for (const name of ["content-type", "User-Agent", "Content-Length", "HOST", "webhook-id", "Webhook-Timestamp", "webhook-signature"]) {
      const r = await a.request("POST", "/api/destinations", {
        name: "Bad",
        urls: ["https://ok.example"],
        headers: [{ name, value: "v" }],
      });
      expect(r.status, name).toBe(422);
      expect(r.body.error.fields["headers.0.name"]).toBeDefined();
    }
    const six = await a.request("POST", "/api/destinations", { name: "Bad", urls: [1, 2, 3, 4, 5, 6].map((i) => `https://h${i}.example`) });
    expect(six.body.error.fields.urls).toBeDefined();
    expect((await a.get("/api/destinations")).destinations.length).toBe(before);
  });

  it("keeps a rate limit (docs/webhooks.md#rate-limits), refuses a bad one with its field and reason, and shows the backlog", async () => {
    const created = await a.post("/api/destinations", { name: "Limited", urls: [`${rx.url}/hook`], rateLimit: { perSecond: 20 } });
    expect(created.rateLimit).toEqual({ perSecond: 20, concurrency: null });
    const plain = await a.post("/api/destinations", { name: "Plain", urls: [`${rx.url}/hook`] });
    expect(plain.rateLimit).toEqual({ perSecond: null, concurrency: null });
    const both = await a.patch(`/api/destinations/${created.id}`, { rateLimit: { perSecond: 5, concurrency: 2 } });
    expect(both.rateLimit).toEqual({ perSecond: 5, concurrency: 2 });
    expect((await a.patch(`/api/destinations/${created.id}`, { name: "Still limited" })).rateLimit).toEqual({
      perSecond: 5,
      concurrency: 2,
    });
    expect((await a.patch(`/api/destinations/${created.id}`, { rateLimit: null })).rateLimit).toEqual({
      perSecond: null,
      concurrency: null,
    });

    const bad = await a.request("PATCH", `/api/destinations/${created.id}`, { rateLimit: { perSecond: 0, concurrency: 1.5 } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toEqual({ "rateLimit.perSecond": ["At least 1"], "rateLimit.concurrency": ["A whole number"] });
    const huge = await a.request("POST", "/api/destinations", { name: "Huge", urls: [`${rx.url}/hook`], rateLimit: { perSecond: 20000 } });
    expect(huge.body.error.fields["rateLimit.perSecond"]).toEqual(["At most 10000"]);
    const text = await a.request("POST", "/api/destinations", { name: "Text", urls: [`${rx.url}/hook`], rateLimit: { concurrency: "4" } });
    expect(text.body.error.fields["rateLimit.concurrency"]?.[0]).toContain("Enter a number");

    expect((await a.get(`/api/destinations/${created.id}/health`)).backlog).toEqual({ pending: 0, oldestPendingAt: null });
  });

  it("refuses another workspace's source (422) and hides other workspaces' destinations (404)", async () => {
    const res = await a.request("POST", "/api/destinations", { name: "X", urls: ["https://ok.example"], sourceIds: [sourceA, sourceB] });
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual({ "sourceIds.1": ["No such source in this workspace"] });

    const mine = await a.post("/api/destinations", { name: "Mine", urls: [`${rx.url}/hook`] });
    for (const [method, path, body] of [
      ["GET", `/api/destinations/${mine.id}`, undefined],
      ["PATCH", `/api/destinations/${mine.id}`, { name: "stolen" }],
      ["DELETE", `/api/destinations/${mine.id}`, undefined],
      ["POST", `/api/destinations/${mine.id}/test`, { type: "track" }],
    ] as const) {
      expect((await b.request(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await b.get("/api/destinations")).destinations.map((d: any) => d.id)).not.toContain(mine.id);
    expect((await a.get(`/api/destinations/${mine.id}`)).name).toBe("Mine");
    expect((await fetch(`${stack.app.url}/api/destinations`)).status).toBe(401);
  });
});

describe("send test", () => {
  it("sends a signed sample of each type now and answers with the attempts; they are in the log", async () => {
    const dest = await a.post("/api/destinations", {
      name: "Test me",
      urls: [`${rx.url}/hook`],
      sharedSecret: "t0p",
      headers: [{ name: "X-Env", value: "staging" }],
    });
    for (const type of ["page", "screen", "identify", "track", "alias", "group", "delete"]) {
      const n = rx.requests.length;
      const { attempts } = await a.post(`/api/destinations/${dest.id}/test`, { type });
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({
        type,
        responseStatus: 200,
        outcome: "success",
        attemptNumber: 1,
        url: `${rx.url}/hook`,
        responseBody: '{"ok":true}',
      });
      expect(rx.requests.length).toBe(n + 1);
      const got = rx.requests[n];
      expect(got.body).toBe(attempts[0].requestBody);
      expect(JSON.parse(got.body).type).toBe(type);
      expect(got.headers["x-signature"]).toBe(
        crypto
          .createHmac("sha1", "t0p")
          .update(JSON.stringify(JSON.parse(got.body)))
          .digest("hex"),
      );
      expect(got.headers["x-env"]).toBe("staging");
    }
    const alias = JSON.parse(rx.requests[rx.requests.length - 3].body);
    expect(Object.keys(alias)).toEqual(expect.arrayContaining(["Previous ID", "User ID"]));
    expect(JSON.parse(rx.requests[rx.requests.length - 1].body)).toEqual({
      type: "delete",
      userId: "user_1042",
      timestamp: expect.any(String),
      messageId: expect.stringMatching(/^test-/),
    });
  });

  it("sends only to the given URL, with payload overrides, and reports failures inline", async () => {
    const dest = await a.post("/api/destinations", { name: "Override", urls: ["https://never.example/hook"] });
    const { attempts } = await a.post(`/api/destinations/${dest.id}/test`, {
      type: "track",
      url: `${rx.url}/fail`,
      payload: { event: "Custom Event", userId: "u-77" },
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      url: `${rx.url}/fail`,
      responseStatus: 500,
      outcome: "failed",
      responseBody: "nope",
      userId: "u-77",
    });
    expect(JSON.parse(attempts[0].requestBody)).toMatchObject({ event: "Custom Event", userId: "u-77" });
    const msg = await a.get(`/api/messages/${attempts[0].messageRowId}`);
    expect(msg.deliveries[0]).toMatchObject({ state: "failed", destinationName: "Override", lastStatus: 500 });
    expect(msg.attempts.map((x: any) => x.id)).toEqual([attempts[0].id]);
    expect((await a.request("POST", `/api/destinations/${dest.id}/test`, { type: "nope" })).status).toBe(422);
  });
});

describe("attempt log API", () => {
  it("filters, pages newest first with a cursor, and is scoped to the workspace", async () => {
    const dest = await a.post("/api/destinations", { name: "Paging", urls: [`${rx.url}/hook`] });
    for (let i = 0; i < 5; i++)
      await a.post(`/api/destinations/${dest.id}/test`, { type: i % 2 ? "page" : "track", url: i === 4 ? `${rx.url}/fail` : undefined });

    const all = await a.get(`/api/attempts?destinationId=${dest.id}`);
    expect(all.attempts).toHaveLength(5);
    const ids = all.attempts.map((x: any) => Number(x.id));
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    expect(all.attempts[0]).toMatchObject({ destinationName: "Paging", responseStatus: 500, outcome: "failed" });
    expect(all.attempts[0]).not.toHaveProperty("requestBody");

    const p1 = await a.get(`/api/attempts?destinationId=${dest.id}&limit=2`);
    const p2 = await a.get(`/api/attempts?destinationId=${dest.id}&limit=2&cursor=${p1.nextCursor}`);
    const p3 = await a.get(`/api/attempts?destinationId=${dest.id}&limit=2&cursor=${p2.nextCursor}`);
    expect([...p1.attempts, ...p2.attempts, ...p3.attempts].map((x: any) => x.id)).toEqual(all.attempts.map((x: any) => x.id));
    expect(p3.nextCursor).toBeNull();

    expect((await a.get(`/api/attempts?destinationId=${dest.id}&type=page`)).attempts).toHaveLength(2);
    expect((await a.get(`/api/attempts?destinationId=${dest.id}&statusClass=5xx`)).attempts).toHaveLength(1);
    expect((await a.get(`/api/attempts?destinationId=${dest.id}&statusClass=2xx&outcome=success`)).attempts).toHaveLength(4);
    expect((await a.get(`/api/attempts?destinationId=${dest.id}&url=${encodeURIComponent(`${rx.url}/fail`)}`)).attempts).toHaveLength(1);
    expect((await a.get(`/api/attempts?destinationId=${dest.id}&from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`)).attempts).toHaveLength(
      0,
    );
    const bad = await a.request("GET", "/api/attempts?outcome=maybe&limit=0");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["limit", "outcome"]);
    // A cursor too long for a bigint is a bad cursor (422), not a database error (500).
    const overflow = await a.request("GET", `/api/attempts?cursor=${"9".repeat(30)}`);
    expect(overflow.status).toBe(422);
    expect(Object.keys(overflow.body.error.fields)).toEqual(["cursor"]);

    const detail = await a.get(`/api/attempts/${all.attempts[0].id}`);
    expect(detail).toMatchObject({
      id: all.attempts[0].id,
      responseBody: "nope",
      requestHeaders: expect.objectContaining({ "user-agent": "Eventrail.io/1.0" }),
    });
    expect((await b.request("GET", `/api/attempts/${all.attempts[0].id}`)).status).toBe(404);
    expect((await b.request("GET", `/api/messages/${all.attempts[0].messageRowId}`)).status).toBe(404);
    expect((await b.get(`/api/attempts?destinationId=${dest.id}`)).attempts).toHaveLength(0);
    expect((await a.request("GET", "/api/attempts/not-a-number")).status).toBe(404);
    expect((await a.request("GET", "/api/messages/not-a-uuid")).status).toBe(404);
  });
});
