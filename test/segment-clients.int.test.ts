// What Segment's client libraries need from Eventrail's public port, as they use it: the settings
// document, the browser bundle, errors they can read, and calls delivered exactly — through the
// ingest process in front of the web app, with a worker delivering to a real receiver.
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { xSignature } from "../lib/webhooks/signing";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { startIngest, startStack, waitFor, type ApiClient, type Proc, type Stack } from "./harness/stack";
import { basic, openDb, postTracking, type Db } from "./harness/tracking";

const SECRET = "segment-clients-secret";
let stack: Stack;
let ingest: Proc & { url: string };
let api: ApiClient;
let db: Db;
let rx: Receiver;
let writeKey: string;
let sourceId: string;

beforeAll(async () => {
  stack = await startStack({ workers: 1 });
  ingest = await startIngest(stack.databaseUrl, { webUrl: stack.app.url });
  api = await stack.newWorkspace("clients");
  db = openDb(stack.databaseUrl);
  rx = await startReceiver(() => ({ status: 200 }));
  const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: "Web" });
  writeKey = source.writeKey;
  sourceId = source.id;
  await api.post("/api/destinations", { name: "Hooks", urls: [`${rx.url}/hook`], sourceIds: [sourceId], sharedSecret: SECRET });
});
afterAll(async () => {
  await rx?.close();
  await db?.end();
  await ingest?.stop();
  await stack?.stop();
});

/** The webhook body delivered for a messageId (to `/hook`, or another path), once it arrives, checked against its X-Signature. */
async function delivered(messageId: string, path = "/hook"): Promise<string> {
  const req = await waitFor(async () => rx.requests.find((r) => r.path === path && r.body.includes(`"messageId":"${messageId}"`)), {
    what: `the delivery of ${messageId} to ${path}`,
  });
  expect(req.headers["x-signature"]).toBe(xSignature(SECRET, req.body));
  return req.body;
}

const storedPayload = async (messageId: string) =>
  (await db.query<{ payload: any }>("SELECT payload FROM messages WHERE source_id = $1 AND message_id = $2", [sourceId, messageId])).rows[0]
    ?.payload;

describe("GET /v1/projects/:writeKey/settings", () => {
  it("serves Segment's settings document, pointing the libraries back at this install", async () => {
    const res = await fetch(`${ingest.url}/v1/projects/${writeKey}/settings`, { headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const doc = await res.json();
    expect(doc.integrations["Segment.io"]).toMatchObject({
      apiKey: writeKey,
      apiHost: `${new URL(ingest.url).host}/v1`,
      protocol: "http",
    });
    expect(doc).toMatchObject({ plan: { track: { __default: { enabled: true } } }, edgeFunction: {}, analyticsNextEnabled: true });
  });

  it("answers 404 with code and message for an unknown key and for a disabled source's key", async () => {
    const disabled = await api.post<{ id: string; writeKey: string }>("/api/sources", { name: "Off" });
    await api.patch(`/api/sources/${disabled.id}`, { enabled: false });
    for (const key of ["no-such-key", disabled.writeKey]) {
      const res = await fetch(`${ingest.url}/v1/projects/${key}/settings`);
      expect(res.status, key).toBe(404);
      expect(await res.json()).toMatchObject({ code: "not_found", message: expect.any(String) });
    }
  });
});

describe("the browser bundle", () => {
  it("serves the snippet's analytics.min.js and the chunks it loads from the same CDN path", async () => {
    const res = await fetch(`${ingest.url}/analytics.js/v1/${writeKey}/analytics.min.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    const js = await res.text();
    const chunk = /queryString:"([0-9a-f]+)"|538:"([0-9a-f]+)"/.exec(js);
    expect(chunk).not.toBeNull();
    const file = `queryString.bundle.${chunk![1] ?? chunk![2]}.js`;
    const c = await fetch(`${ingest.url}/analytics-next/bundles/${file}`);
    expect(c.status).toBe(200);
    expect(c.headers.get("cache-control")).toContain("immutable");
    expect((await fetch(`${ingest.url}/analytics-next/bundles/..%2Fpackage.json`)).status).toBe(404);
  });
});

describe("what the mobile libraries send", () => {
  it("analytics-kotlin: settings first, then a gzip text/plain batch to /v1/b with the key in the body", async () => {
    const settings = await (
      await fetch(`${ingest.url}/v1/projects/${writeKey}/settings`, { headers: { "user-agent": "analytics-kotlin/1.19.1" } })
    ).json();
    const { apiHost, protocol } = settings.integrations["Segment.io"];
    const batch = {
      batch: [
        {
          type: "screen",
          messageId: "kotlin-1",
          anonymousId: "6d4a9b0e-kotlin",
          userId: "",
          name: "Checkout",
          category: "Shop",
          properties: { step: 2 },
          integrations: {},
          context: { app: { name: "Acme" }, device: { type: "android" }, library: { name: "analytics-kotlin", version: "1.19.1" } },
          timestamp: "2026-11-28T07:00:00.000Z",
        },
      ],
      sentAt: "2026-11-28T07:00:01.000Z",
      writeKey,
    };
    const res = await fetch(`${protocol}://${apiHost}/b`, {
      method: "POST",
      headers: { "content-type": "text/plain", "content-encoding": "gzip", "user-agent": "analytics-kotlin/1.19.1" },
      body: zlib.gzipSync(JSON.stringify(batch)),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const body = JSON.parse(await delivered("kotlin-1"));
    // A screen keeps its category, as a page does; context.ip comes from the request.
    expect(body).toMatchObject({
      type: "screen",
      name: "Checkout",
      category: "Shop",
      properties: { step: 2 },
      anonymousId: "6d4a9b0e-kotlin",
    });
    expect(body.context.ip).toBe("127.0.0.1");
  });

  it("analytics-swift: JSON with Basic auth to /v1/b; a call's own context.ip is kept", async () => {
    const settings = await (await fetch(`${ingest.url}/v1/projects/${writeKey}/settings`)).json();
    const { apiHost, protocol } = settings.integrations["Segment.io"];
    const res = await fetch(`${protocol}://${apiHost}/b`, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: basic(writeKey),
        "user-agent": "analytics-ios/1.7.3",
        "accept-encoding": "gzip",
      },
      body: JSON.stringify({
        batch: [
          {
            type: "track",
            messageId: "swift-1",
            anonymousId: "A1B2-swift",
            event: "Added to Cart",
            properties: { sku: "SKU-1" },
            context: { ip: "198.51.100.7", library: { name: "analytics-swift", version: "1.7.3" } },
            timestamp: "2026-11-28T07:00:00.000Z",
          },
        ],
        sentAt: "2026-11-28T07:00:01.000Z",
      }),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(await delivered("swift-1")).context.ip).toBe("198.51.100.7");
  });
});

describe("answers and payloads", () => {
  it("refusals carry code and message at the top level, as Segment's Python library reads them", async () => {
    const res = await postTracking(ingest.url, "/v1/track", { userId: "u", event: "E" }, { writeKey: "wrong-key" });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: "unauthorized", message: "Unknown write key" });
    const bad = await postTracking(ingest.url, "/v1/t", { userId: "u" }, { writeKey });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_message", message: expect.stringMatching(/track requires an event name/) });
  });

  it("stores integers beyond 2^53 exact; sends them as JavaScript writes them, or digit for digit where a destination asks", async () => {
    // Mapped and batched too: each body obeys its destination's number form (docs/webhooks.md#numbers).
    const more = [
      { name: "Exact", urls: [`${rx.url}/exact`], numbers: "exact" },
      { name: "Mapped", urls: [`${rx.url}/mapped`], mapping: { "@path": "$." } },
      { name: "Mapped exact", urls: [`${rx.url}/mapped-exact`], mapping: { "@path": "$." }, numbers: "exact" },
      { name: "Batched", urls: [`${rx.url}/batched`], batch: { size: 2, maxWaitMs: 200 } },
    ];
    for (const d of more) await api.post("/api/destinations", { ...d, sourceIds: [sourceId], sharedSecret: SECRET });
    const text =
      '{"type":"track","event":"Order Completed","messageId":"big-1","userId":9007199254740993,' +
      '"properties":{"orderId":9007199254740993,"ids":[18446744073709551615,-9223372036854775808],"total":12.5}}';
    const res = await postTracking(ingest.url, "/v1/track", text, { writeKey });
    expect(res.status).toBe(200);
    const exactProps = '"properties":{"orderId":9007199254740993,"ids":[18446744073709551615,-9223372036854775808],"total":12.5}';
    const jsProps = '"properties":{"orderId":9007199254740992,"ids":[18446744073709552000,-9223372036854776000],"total":12.5}';
    for (const path of ["/hook", "/mapped", "/batched"]) {
      const body = await delivered("big-1", path);
      expect(body, path).toContain(jsProps);
      // The seed's recipe: HMAC over JSON.stringify(JSON.parse(body)), as Segment's customers verify.
      expect(xSignature(SECRET, JSON.stringify(JSON.parse(body))), path).toBe(xSignature(SECRET, body));
    }
    for (const path of ["/exact", "/mapped-exact"]) expect(await delivered("big-1", path), path).toContain(exactProps);
    const body = await delivered("big-1");
    expect(body).toContain('"userId":"9007199254740993"');
    const stored = await db.query<{ p: string }>("SELECT payload::text AS p FROM messages WHERE source_id = $1 AND message_id = 'big-1'", [
      sourceId,
    ]);
    expect(stored.rows[0].p).toContain('"orderId":9007199254740993');
  });

  it("rejects a number past a double's range as a bad field, with where it is", async () => {
    const single = await postTracking(ingest.url, "/v1/track", '{"userId":"u","event":"E","messageId":1e400}', { writeKey });
    expect(single.status).toBe(400);
    expect(single.body.message).toBe("The message was rejected: messageId is 1e400, which is not a finite number");
    const batch = await postTracking(
      ingest.url,
      "/v1/batch",
      '{"batch":[{"type":"track","userId":"u","event":"E","messageId":"inf-1","properties":{"total":-1e400}},{"type":"track","userId":"u","event":"E","messageId":"fin-1"}]}',
      { writeKey },
    );
    expect(batch.status).toBe(200);
    expect(batch.body.rejected).toEqual([
      { index: 0, messageId: "inf-1", reason: "properties.total is -1e400, which is not a finite number" },
    ]);
    expect(await storedPayload("inf-1")).toBeUndefined();
    expect(await storedPayload("fin-1")).toBeDefined();
  });
});
