// Destinations as an attacker or a careless client finds them, against a real `next start`:
// - write-only secrets (docs/signing.md#secrets): no list or detail answer carries a
//   shared secret, a Standard Webhooks secret or a custom header value; revealing one is its own call;
//   PATCH keeps what it omits; the attempt log masks every custom header value;
// - secrets used exactly as entered (issue 13 item 5): surrounding whitespace refused, never trimmed;
// - issue 12 item 9: rows holding headers that could never be delivered are sent without them;
// - issue 12 item 10: fan-out ceilings per workspace and per source, under concurrent creates.
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESTINATION_LIMITS } from "../../lib/destinations/contract";
import { startReceiver, type Receiver } from "../harness/delivery/receiver";
import { startStack, type ApiClient, type Stack } from "../harness/stack";

let stack: Stack;
let db: pg.Pool;
let rx: Receiver;
let a: ApiClient;
let b: ApiClient;

const SHARED = "shared-secret-0123-wxyz";
const STANDARD = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
const API_KEY = "api-key-0123456789-abcd";

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  rx = await startReceiver(() => ({ status: 200 }));
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
});
afterAll(async () => {
  await rx?.close();
  await db?.end();
  await stack?.stop();
});

const signed = () =>
  a.post("/api/destinations", {
    name: "Signed",
    urls: [`${rx.url}/hook`],
    headers: [
      { name: "X-Api-Key", value: API_KEY },
      { name: "X-Team", value: "growth" },
    ],
    sharedSecret: SHARED,
    standardWebhooks: true,
    standardSecret: STANDARD,
  });
const reveal = (client: ApiClient, id: string, which: Record<string, string>) =>
  client.request("POST", `/api/destinations/${id}/reveal`, which);

describe("write-only secrets", () => {
  it("never returns a secret or a header value from create, list, detail or update: only whether it is set and its last 4", async () => {
    const created = await signed();
    const answers = [
      created,
      await a.get("/api/destinations"),
      await a.get(`/api/destinations/${created.id}`),
      await a.patch(`/api/destinations/${created.id}`, { name: "Renamed" }),
    ];
    for (const answer of answers) {
      const text = JSON.stringify(answer);
      for (const value of [SHARED, STANDARD, API_KEY, "growth"]) expect(text).not.toContain(value);
    }
    expect(await a.get(`/api/destinations/${created.id}`)).toMatchObject({
      sharedSecret: { set: true, last4: "wxyz" },
      standardSecret: { set: true, last4: STANDARD.slice(-4) },
      headers: [
        { name: "X-Api-Key", value: { set: true, last4: "abcd" } },
        // Too short for any of it to be shown.
        { name: "X-Team", value: { set: true, last4: null } },
      ],
    });
  });

  it("reveals one value per call, to the workspace only, never cached", async () => {
    const d = await signed();
    const shared = await reveal(a, d.id, { secret: "sharedSecret" });
    expect(shared.status).toBe(200);
    expect(shared.body).toEqual({ value: SHARED });
    expect(shared.headers.get("cache-control")).toBe("no-store");
    expect((await reveal(a, d.id, { secret: "standardSecret" })).body).toEqual({ value: STANDARD });
    expect((await reveal(a, d.id, { header: "x-api-key" })).body).toEqual({ value: API_KEY });
    expect((await reveal(a, d.id, { header: "X-Nope" })).status).toBe(404);
    expect((await reveal(b, d.id, { secret: "sharedSecret" })).status).toBe(404);
    const unsigned = await a.post("/api/destinations", { name: "Unsigned", urls: [`${rx.url}/hook`] });
    expect((await reveal(a, unsigned.id, { secret: "sharedSecret" })).status).toBe(404);
  });

  it('PATCH keeps an omitted secret, removes it on null or "", and keeps a header value sent without one', async () => {
    const d = await signed();
    await a.patch(`/api/destinations/${d.id}`, {
      name: "Only the name",
      headers: [{ name: "X-Api-Key" }, { name: "X-Team", value: "data" }],
    });
    expect((await reveal(a, d.id, { secret: "sharedSecret" })).body.value).toBe(SHARED);
    expect((await reveal(a, d.id, { header: "X-Api-Key" })).body.value).toBe(API_KEY);
    expect((await reveal(a, d.id, { header: "X-Team" })).body.value).toBe("data");

    const removed = await a.patch(`/api/destinations/${d.id}`, { sharedSecret: null, headers: [{ name: "X-Api-Key", value: null }] });
    expect(removed).toMatchObject({ sharedSecret: { set: false, last4: null }, headers: [] });
    await a.patch(`/api/destinations/${d.id}`, { sharedSecret: "another-one" });
    expect((await a.patch(`/api/destinations/${d.id}`, { sharedSecret: "" })).sharedSecret).toEqual({ set: false, last4: null });

    const unknown = await a.request("PATCH", `/api/destinations/${d.id}`, { headers: [{ name: "X-New" }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.fields).toHaveProperty("headers.0.value");
  });

  it("signs with the stored secrets and masks every custom header value in the attempt log", async () => {
    const d = await signed();
    const { attempts } = await a.post(`/api/destinations/${d.id}/test`, { type: "track" });
    const got = rx.requests.at(-1)!;
    expect(got.headers["x-api-key"]).toBe(API_KEY);
    expect(got.headers["x-team"]).toBe("growth");
    expect(got.headers["x-signature"]).toBe(crypto.createHmac("sha1", SHARED).update(got.body).digest("hex"));
    expect(attempts[0].requestHeaders).toMatchObject({ "X-Api-Key": "••••abcd", "X-Team": "••••", "content-type": "application/json" });
    expect(attempts[0].requestHeaders["x-signature"]).toBe(got.headers["x-signature"]);
    const logged = JSON.stringify(await a.get(`/api/messages/${attempts[0].messageRowId}`));
    for (const value of [SHARED, STANDARD, API_KEY, "growth"]) expect(logged).not.toContain(value);
  });
});

describe("secrets are used exactly as entered (issue 13 item 5)", () => {
  it("refuses leading or trailing whitespace with a field error instead of trimming", async () => {
    for (const [field, value] of [
      ["sharedSecret", " s3cret"],
      ["sharedSecret", "s3cret\n"],
      ["standardSecret", `${STANDARD} `],
    ]) {
      const res = await a.request("POST", "/api/destinations", {
        name: "ws",
        urls: [`${rx.url}/hook`],
        standardWebhooks: true,
        [field]: value,
      });
      expect(res.status, JSON.stringify(value)).toBe(422);
      expect(res.body.error.fields[field]).toEqual([expect.stringMatching(/cannot start or end with a space/)]);
    }
  });

  it("signs with a secret that has inner spaces and non-ASCII as it is", async () => {
    const secret = "üñí cödé 🔑";
    const d = await a.post("/api/destinations", { name: "exact", urls: [`${rx.url}/hook`], sharedSecret: secret });
    expect((await reveal(a, d.id, { secret: "sharedSecret" })).body.value).toBe(secret);
    await a.post(`/api/destinations/${d.id}/test`, { type: "identify" });
    const got = rx.requests.at(-1)!;
    expect(got.headers["x-signature"]).toBe(crypto.createHmac("sha1", secret).update(got.body).digest("hex"));
  });
});

describe("headers that could never be delivered (item 9)", () => {
  it("sends a destination saved before the rules without its connection-level and malformed headers", async () => {
    const d = await a.post("/api/destinations", { name: "legacy", urls: [`${rx.url}/legacy`] });
    // What the old validation let through, written as it would have been stored.
    const legacy = [
      { name: "Transfer-Encoding", value: "chunked" },
      { name: "Connection", value: "close" },
      { name: "Keep-Alive", value: "timeout=5" },
      { name: "TE", value: "trailers" },
      { name: "Proxy-Authorization", value: "Basic eDp5" },
      { name: "Content-Encoding", value: "gzip" },
      { name: "X-Ctl", value: "a\u0001b" },
      { name: "X-Snow", value: "☃" },
      { name: "X-Kept", value: "fine" },
    ];
    await db.query("UPDATE destinations SET headers = $2 WHERE id = $1", [d.id, JSON.stringify(legacy)]);
    const { attempts } = await a.post(`/api/destinations/${d.id}/test`, { type: "track" });
    expect(attempts[0]).toMatchObject({ outcome: "success", responseStatus: 200 });
    const got = rx.requests.at(-1)!;
    expect(got.headers["x-kept"]).toBe("fine");
    for (const name of ["te", "proxy-authorization", "content-encoding", "x-ctl", "x-snow", "keep-alive"])
      expect(got.headers[name], name).toBeUndefined();
    expect(got.headers["transfer-encoding"]).toBeUndefined();
    expect(JSON.parse(got.body).type).toBe("track");
  });

  it("refuses a URL with credentials and says to use the Authorization header", async () => {
    const res = await a.request("POST", "/api/destinations", { name: "creds", urls: ["http://alice:pw@127.0.0.1:9/hook"] });
    expect(res.status).toBe(422);
    expect(res.body.error.fields["urls.0"]).toEqual([expect.stringMatching(/Authorization header/)]);
  });
});

describe("fan-out ceilings (item 10)", () => {
  it(`creates at most ${DESTINATION_LIMITS.perWorkspace} destinations per workspace, even when asked all at once`, async () => {
    const ws = await stack.newWorkspace("fan-out");
    const tries = DESTINATION_LIMITS.perWorkspace + 10;
    const results = await Promise.all(
      Array.from({ length: tries }, (_, i) => ws.request("POST", "/api/destinations", { name: `d${i}`, urls: [`${rx.url}/d${i}`] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(DESTINATION_LIMITS.perWorkspace);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(10);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body.error.message).toMatch(new RegExp(`at most ${DESTINATION_LIMITS.perWorkspace} destinations`));
    }
    expect((await ws.get("/api/destinations")).destinations).toHaveLength(DESTINATION_LIMITS.perWorkspace);
  });

  it(`connects a source to at most ${DESTINATION_LIMITS.perSource} destinations, on create and on update`, async () => {
    const ws = await stack.newWorkspace("per-source");
    const source = await ws.post("/api/sources", { name: "busy" });
    const quiet = await ws.post("/api/sources", { name: "quiet" });
    for (let i = 0; i < DESTINATION_LIMITS.perSource; i++) {
      await ws.post("/api/destinations", { name: `d${i}`, urls: [`${rx.url}/s${i}`], sourceIds: [source.id] });
    }
    const over = await ws.request("POST", "/api/destinations", {
      name: "one too many",
      urls: [`${rx.url}/x`],
      sourceIds: [quiet.id, source.id],
    });
    expect(over.status).toBe(422);
    expect(Object.keys(over.body.error.fields)).toEqual(["sourceIds.1"]);
    expect(over.body.error.fields["sourceIds.1"][0]).toMatch(new RegExp(`already sends to ${DESTINATION_LIMITS.perSource} destinations`));

    const spare = await ws.post("/api/destinations", { name: "spare", urls: [`${rx.url}/spare`], sourceIds: [quiet.id] });
    const patch = await ws.request("PATCH", `/api/destinations/${spare.id}`, { sourceIds: [quiet.id, source.id] });
    expect(patch.status).toBe(422);
    expect((await ws.get(`/api/destinations/${spare.id}`)).sourceIds).toEqual([quiet.id]);
    // A destination already connected keeps its place when it is saved again.
    const connected = (await ws.get("/api/destinations")).destinations.find((d: { name: string }) => d.name === "d0");
    expect((await ws.request("PATCH", `/api/destinations/${connected.id}`, { sourceIds: [source.id], name: "d0 again" })).status).toBe(200);
  });
});

// Issue 40: each limit at the limit, one over and one under (docs/webhooks.md#limits, docs/management-api.md),
// with the numbers written out so that a changed constant fails here too.
describe("limits at, over and under", () => {
  const urls = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${rx.url}/${tag}/${i}`);
  const headers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `X-Extra-${i}`, value: `v${i}` }));

  it("takes 4 and 5 URLs and refuses 6, on create and on update", async () => {
    const ws = await stack.newWorkspace("url-limit");
    for (const n of [4, 5]) {
      const res = await ws.request("POST", "/api/destinations", { name: `urls-${n}`, urls: urls(n, `c${n}`) });
      expect(res.status, `${n} URLs`).toBe(201);
      expect(res.body.urls).toHaveLength(n);
    }
    const six = await ws.request("POST", "/api/destinations", { name: "urls-6", urls: urls(6, "c6") });
    expect(six.status).toBe(422);
    expect(six.body.error.fields.urls).toEqual(["At most 5 URLs"]);

    const dest = await ws.post("/api/destinations", { name: "grows", urls: urls(1, "g") });
    expect((await ws.request("PATCH", `/api/destinations/${dest.id}`, { urls: urls(4, "p4") })).status).toBe(200);
    expect((await ws.request("PATCH", `/api/destinations/${dest.id}`, { urls: urls(5, "p5") })).status).toBe(200);
    const over = await ws.request("PATCH", `/api/destinations/${dest.id}`, { urls: urls(6, "p6") });
    expect(over.status).toBe(422);
    expect(over.body.error.fields.urls).toEqual(["At most 5 URLs"]);
    expect((await ws.get(`/api/destinations/${dest.id}`)).urls).toEqual(urls(5, "p5"));
    expect((await ws.get("/api/destinations")).destinations.map((d: { name: string }) => d.name).sort()).toEqual([
      "grows",
      "urls-4",
      "urls-5",
    ]);
  });

  it("takes 4 and 5 custom headers and refuses 6, on create and on update", async () => {
    const ws = await stack.newWorkspace("header-limit");
    for (const n of [4, 5]) {
      const res = await ws.request("POST", "/api/destinations", { name: `headers-${n}`, urls: urls(1, `h${n}`), headers: headers(n) });
      expect(res.status, `${n} headers`).toBe(201);
      expect(res.body.headers.map((h: { name: string }) => h.name)).toEqual(headers(n).map((h) => h.name));
    }
    const six = await ws.request("POST", "/api/destinations", { name: "headers-6", urls: urls(1, "h6"), headers: headers(6) });
    expect(six.status).toBe(422);
    expect(six.body.error.fields.headers).toEqual(["At most 5 headers"]);

    const dest = await ws.post("/api/destinations", { name: "grows", urls: urls(1, "hg") });
    expect((await ws.request("PATCH", `/api/destinations/${dest.id}`, { headers: headers(5) })).status).toBe(200);
    const over = await ws.request("PATCH", `/api/destinations/${dest.id}`, { headers: headers(6) });
    expect(over.status).toBe(422);
    expect(over.body.error.fields.headers).toEqual(["At most 5 headers"]);
    expect((await ws.get(`/api/destinations/${dest.id}`)).headers).toHaveLength(5);
    expect((await ws.get("/api/destinations")).destinations).toHaveLength(3);
  });

  it("creates the 50th destination of a workspace (49 under the limit) and refuses the 51st with 409", async () => {
    const ws = await stack.newWorkspace("fifty");
    for (let i = 0; i < 49; i++) await ws.post("/api/destinations", { name: `d${i}`, urls: [`${rx.url}/fifty/${i}`] });
    expect((await ws.get("/api/destinations")).destinations).toHaveLength(49);
    const fiftieth = await ws.request("POST", "/api/destinations", { name: "d49", urls: [`${rx.url}/fifty/49`] });
    expect(fiftieth.status).toBe(201);
    const fiftyFirst = await ws.request("POST", "/api/destinations", { name: "d50", urls: [`${rx.url}/fifty/50`] });
    expect(fiftyFirst.status).toBe(409);
    expect(fiftyFirst.body.error.message).toMatch(/at most 50 destinations/);
    expect((await ws.get("/api/destinations")).destinations).toHaveLength(50);
  });
});
