// Structured logs from real processes: every line is JSON, every API and Tracking request line has
// a request id (the caller's X-Request-Id when given, echoed back), and credentials — write keys,
// API and admin tokens, session cookies, CSRF tokens, passwords, shared secrets and custom header
// values — never appear, at debug level, while they are being sent in every way a client can send them.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, SETUP_CODE, startStack, waitFor, type ApiClient, type Stack } from "./harness/stack";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { postTracking } from "./harness/tracking";

let stack: Stack;
let api: ApiClient;
let rx: Receiver;
const SHARED_SECRET = "shared-secret-value-7f3a91";
const HEADER_VALUE = "custom-header-value-c0ffee42";
const PASSWORD = "owner-password-9a8b7c6d";
const UNKNOWN_KEY = "unknown-write-key-5e6f7a8b";
const BOGUS_TOKEN = "er_bogus_token_0d1e2f3a4b5c";
let secrets: string[] = [];
/** What `next start` itself prints while starting (docs/operations.md#logs). */
const NEXT_BANNER = [
  /^▲ Next\.js \d+\.\d+\.\d+$/,
  /^- (Local|Network): +https?:\/\/\S+$/,
  /^✓ Starting\.\.\.$/,
  /^✓ Ready in \d+(\.\d+)?m?s$/,
  /^✓ Running next\.config\.ts took \d+(\.\d+)?m?s$/,
];

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: { LOG_LEVEL: "debug", EVENTRAIL_RETRY_BASE_MS: "200" } });
  api = await stack.newWorkspace("logs");
  // The receiver fails and echoes what it got, so the worker has errors to log.
  rx = await startReceiver((req) => ({ status: 500, body: JSON.stringify(req.headers) }));
});
afterAll(async () => {
  await rx?.close();
  await stack?.stop();
});

describe("a client that hangs up", () => {
  it("mid-body is logged as a client abort, not as the database being unavailable (issue 38)", async () => {
    const requestId = "req-client-abort-01";
    const req = http.request(`${stack.app.url}/api/sources`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${api.token}`,
        "content-type": "application/json",
        "content-length": "100000",
        "x-request-id": requestId,
      },
    });
    req.on("error", () => {});
    await new Promise<void>((resolve) => req.write('{"name":"half a body', () => resolve()));
    // Nothing outside the app shows that it has started reading the body: give it a moment, then hang up.
    await new Promise((r) => setTimeout(r, 500));
    req.destroy();
    const mine = () =>
      stack.app
        .output()
        .split("\n")
        .filter((l) => l.includes(requestId))
        .map((l) => JSON.parse(l));
    await waitFor(async () => mine().some((e) => e.msg === "api request"), { what: "the aborted request's log line" });
    expect(mine().map((e) => e.msg)).toEqual(["API call aborted by the client", "api request"]);
    expect(mine()[0]).toMatchObject({ level: 30, method: "POST", path: "/api/sources" });
    expect(stack.app.output()).not.toContain("database unavailable");
    // Nothing was created from half a body.
    expect((await api.get("/api/sources")).sources).toEqual([]);
  });
});

describe("logs", () => {
  it("carry request ids and never credentials", async () => {
    const url = stack.app.url;
    const source = await api.post("/api/sources", { name: "Web" });
    const destination = await api.post("/api/destinations", {
      name: "Hook",
      urls: [`${rx.url}/hook?sig=${HEADER_VALUE}-q`],
      headers: [{ name: "X-Api-Key", value: HEADER_VALUE }],
      sharedSecret: SHARED_SECRET,
      sourceIds: [source.id],
    });
    const rotated = await api.post(`/api/sources/${source.id}/rotate-key`, {});
    const token = await api.post("/api/tokens", { name: "automation" });
    // A write key also travels base64-encoded in Basic auth.
    const b64 = (k: string) => Buffer.from(`${k}:`).toString("base64").replace(/=+$/, "");
    secrets = [
      source.writeKey,
      rotated.writeKey,
      b64(rotated.writeKey),
      b64(UNKNOWN_KEY),
      api.token,
      token.token,
      ADMIN_TOKEN,
      SHARED_SECRET,
      HEADER_VALUE,
      PASSWORD,
      UNKNOWN_KEY,
      BOGUS_TOKEN,
    ];

    // Tracking calls: Basic auth, writeKey in the body, a refused body, an unknown key.
    const wk = rotated.writeKey;
    expect(
      (
        await postTracking(url, "/v1/track", { userId: "u", event: "E" }, { writeKey: wk, headers: { "x-request-id": "req-track-000001" } })
      ).headers.get("x-request-id"),
    ).toBe("req-track-000001");
    expect(
      (await postTracking(url, "/v1/batch", { writeKey: wk, batch: [{ type: "identify", userId: "u", traits: { password: PASSWORD } }] }))
        .status,
    ).toBe(200);
    expect((await postTracking(url, "/v1/track", `{"writeKey":"${wk}", broken`, { writeKey: wk })).status).toBe(400);
    expect((await postTracking(url, "/v1/track", { userId: "u", event: "E" }, { writeKey: UNKNOWN_KEY })).status).toBe(401);
    expect((await postTracking(url, "/v1/track", { writeKey: UNKNOWN_KEY, userId: "u", event: "E" })).status).toBe(401);

    // Management API: bearer tokens good and bad, the admin token, a session cookie with its CSRF token.
    const r = await fetch(`${url}/api/sources`, { headers: { authorization: `Bearer ${token.token}`, "x-request-id": "req-api-0000001" } });
    expect(r.headers.get("x-request-id")).toBe("req-api-0000001");
    expect((await fetch(`${url}/api/sources`, { headers: { authorization: `Bearer ${BOGUS_TOKEN}` } })).status).toBe(401);
    expect((await fetch(`${url}/api/sources`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
    const setup = await fetch(`${url}/api/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "o@example.com", password: PASSWORD, code: SETUP_CODE }),
    });
    expect(setup.status).toBe(201);
    const cookies = setup.headers.getSetCookie().map((c) => c.split(";")[0]);
    const csrf = cookies.find((c) => c.startsWith("er_csrf="))!.split("=")[1];
    const session = cookies.find((c) => c.startsWith("er_session="))!.split("=")[1];
    secrets.push(csrf, session);
    const login = await fetch(`${url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "o@example.com", password: `${PASSWORD}-wrong` }),
    });
    expect(login.status).toBe(401);
    expect(
      (
        await fetch(`${url}/api/tokens`, {
          method: "POST",
          headers: { cookie: cookies.join("; "), "x-csrf-token": csrf, "content-type": "application/json" },
          body: '{"name":"n"}',
        })
      ).status,
    ).toBe(201);
    expect(
      (await fetch(`${url}/api/tokens`, { method: "POST", headers: { cookie: cookies.join("; ") }, body: '{"name":"n"}' })).status,
    ).toBe(403);
    // Send test: the worker-independent path that signs and sends with the custom header.
    await api.post(`/api/destinations/${destination.id}/test`, { type: "identify" });

    // Deliveries fail and are retried with the secret header and signature: the worker logs about them.
    await waitFor(async () => rx.requests.length >= 4, { what: "several failing attempts" });
    expect(rx.requests[0].headers["x-api-key"]).toBe(HEADER_VALUE);
    await stack.workers[0].stop();
    await stack.app.stop();

    const lines = [...stack.app.output().split("\n"), ...stack.workers[0].output().split("\n")].filter((l) => l.trim() !== "");
    // Every line is a JSON object, but for the banner `next start` prints before our code runs.
    const plain = lines.filter((l) => !NEXT_BANNER.some((re) => re.test(l.trim())));
    const notJson = plain.filter((l) => {
      try {
        return typeof JSON.parse(l) !== "object";
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    const json = plain;
    const all = lines.join("\n");
    for (const s of secrets) expect({ secret: s, found: all.includes(s) }).toEqual({ secret: s, found: false });

    const entries = json.map((l) => JSON.parse(l));
    const requests = entries.filter((e) => e.msg === "api request" || e.msg === "tracking request");
    expect(requests.length).toBeGreaterThanOrEqual(15);
    for (const e of requests) expect(e.requestId).toMatch(/^[\w.:-]{8,128}$/);
    expect(requests.find((e) => e.requestId === "req-track-000001")).toMatchObject({ endpoint: "track", status: 200 });
    expect(requests.find((e) => e.requestId === "req-api-0000001")).toMatchObject({
      method: "GET",
      path: "/api/sources",
      status: 200,
      auth: "token",
    });
    expect(entries.some((e) => e.service === "worker")).toBe(true);
  });
});
