// Issue 12 item 4 ("Capture URLs amplify storage and reads") and issue 15 item 9 (signature checks on
// the server), against a real `next start`: bodies are stored as the bytes received, a bin and a
// workspace keep at most CAPTURE_LIMITS' bytes (the oldest requests are dropped, the receiver still
// answers its status), the list carries previews only, one body is fetched at a time, and a captured
// request's signatures are checked against a destination's secrets without them leaving the server.
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPTURE_LIMITS } from "../../lib/capture/limits";
import { startStack, type ApiClient, type Stack } from "../harness/stack";

const MB = 1024 * 1024;

let stack: Stack;
let db: pg.Pool;
let a: ApiClient;
let b: ApiClient;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const capture = (binId: string, body: Uint8Array | string, headers: Record<string, string> = {}) =>
  fetch(`${stack.app.url}/c/${binId}`, { method: "POST", headers, body: body as BodyInit });

/** Fills a bin with `n` requests of `bytes` each, written by Postgres itself (fast, and compressible, so cheap to hold). */
async function fill(binId: string, n: number, bytes: number): Promise<void> {
  await db.query(
    `INSERT INTO captured_requests (bin_id, method, path, headers, body, body_size)
     SELECT $1, 'POST', '/filled/' || i, '{}', convert_to(repeat('x', $3), 'UTF8'), $3 FROM generate_series(1, $2) i`,
    [binId, n, bytes],
  );
}

const storedBytes = async (binId: string) =>
  Number((await db.query("SELECT coalesce(sum(octet_length(body)), 0) AS n FROM captured_requests WHERE bin_id = $1", [binId])).rows[0].n);

describe("storage (item 4)", () => {
  it("stores 1 MB of 0xFF as 1 MB of bytes, not 3 MB of replacement characters, and gives the bytes back exactly", async () => {
    const bin = await a.post("/api/capture-bins", {});
    const body = new Uint8Array(MB).fill(0xff);
    expect((await capture(bin.id, body, { "content-type": "application/octet-stream" })).status).toBe(200);
    const { rows } = await db.query(
      "SELECT octet_length(body) AS bytes, pg_column_size(body) AS on_disk FROM captured_requests WHERE bin_id = $1",
      [bin.id],
    );
    expect(Number(rows[0].bytes)).toBe(MB);
    expect(Number(rows[0].on_disk)).toBeLessThanOrEqual(MB + 1024);

    const [listed] = (await a.get(`/api/capture-bins/${bin.id}/requests`)).requests;
    expect(listed).toMatchObject({ bodySize: MB, truncated: false, contentType: "application/octet-stream", previewCut: true });
    const one = await a.get(`/api/capture-bins/${bin.id}/requests/${listed.id}`);
    expect(one.bodyEncoding).toBe("base64");
    expect(Buffer.from(one.body, "base64").equals(Buffer.from(body))).toBe(true);
  });

  it("keeps UTF-8 bodies as text, NUL bytes and all", async () => {
    const bin = await a.post("/api/capture-bins", {});
    const text = '{"note":"naïve ✓","nul":"\u0000"}';
    await capture(bin.id, text, { "content-type": "application/json" });
    const [listed] = (await a.get(`/api/capture-bins/${bin.id}/requests`)).requests;
    expect(listed).toMatchObject({ preview: text, previewCut: false });
    expect(await a.get(`/api/capture-bins/${bin.id}/requests/${listed.id}`)).toMatchObject({ body: text, bodyEncoding: "utf8" });
  });
});

describe("reads (item 4)", () => {
  it("lists 100 requests of 1 MB each in an answer of previews, under 256 KB, and fetches one body at a time", async () => {
    const bin = await a.post("/api/capture-bins", {});
    // 99 written by Postgres (as the receiver stores them: the bytes as received; the receiver's own
    // throttle is not what this is about), the 100th through the receiver.
    await db.query(
      `INSERT INTO captured_requests (bin_id, method, path, headers, body, body_size)
       SELECT $1, 'POST', '/c/' || $1, '{"content-type":"application/octet-stream"}', decode(repeat('ff', $2), 'hex'), $2 FROM generate_series(1, 99)`,
      [bin.id, MB],
    );
    expect((await capture(bin.id, new Uint8Array(MB).fill(0xff))).status).toBe(200);
    expect(await storedBytes(bin.id)).toBe(100 * MB);

    const res = await fetch(`${stack.app.url}/api/capture-bins/${bin.id}/requests?limit=100`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    const raw = await res.arrayBuffer();
    // Before: every body whole, as text, 3 MB each: 300 MB in one answer.
    expect(raw.byteLength).toBeLessThan(256 * 1024);
    const { requests } = JSON.parse(Buffer.from(raw).toString("utf8"));
    expect(requests).toHaveLength(100);
    for (const r of requests) {
      expect(r).not.toHaveProperty("body");
      expect(r).not.toHaveProperty("headers");
      expect(Buffer.byteLength(r.preview)).toBeLessThanOrEqual(CAPTURE_LIMITS.previewBytes * 3);
      expect(r).toMatchObject({ bodySize: MB, previewCut: true });
    }
    const one = await a.get(`/api/capture-bins/${bin.id}/requests/${requests[0].id}`);
    expect(Buffer.from(one.body, "base64").byteLength).toBe(MB);
  });

  it("answers 404 for a request of another bin or another workspace", async () => {
    const mine = await a.post("/api/capture-bins", {});
    const other = await a.post("/api/capture-bins", {});
    await capture(mine.id, "x");
    const [r] = (await a.get(`/api/capture-bins/${mine.id}/requests`)).requests;
    expect((await a.request("GET", `/api/capture-bins/${other.id}/requests/${r.id}`)).status).toBe(404);
    expect((await b.request("GET", `/api/capture-bins/${mine.id}/requests/${r.id}`)).status).toBe(404);
    expect((await a.request("GET", `/api/capture-bins/${mine.id}/requests/${Number(r.id) + 1000}`)).status).toBe(404);
  });
});

describe("limits (item 4): the oldest requests are dropped, new ones are kept and answered", () => {
  it("keeps at most CAPTURE_LIMITS.binBytes of bodies in a bin", async () => {
    // A workspace of its own, so that only the bin's limit is in play.
    const bin = await (await stack.newWorkspace("one bin")).post("/api/capture-bins", { responseStatus: 202 });
    await fill(bin.id, CAPTURE_LIMITS.binBytes / MB - 1, MB);
    const oldest = (await db.query("SELECT min(id) AS id FROM captured_requests WHERE bin_id = $1", [bin.id])).rows[0].id;

    // Up to the limit exactly: everything stays.
    expect((await capture(bin.id, new Uint8Array(MB))).status).toBe(202);
    expect(await storedBytes(bin.id)).toBe(CAPTURE_LIMITS.binBytes);
    // Past it: the oldest goes, the new one is stored and answered with the bin's status.
    const res = await capture(bin.id, new Uint8Array(MB));
    expect(res.status).toBe(202);
    expect(await storedBytes(bin.id)).toBe(CAPTURE_LIMITS.binBytes);
    const ids = (await db.query("SELECT id FROM captured_requests WHERE bin_id = $1", [bin.id])).rows.map((r) => r.id);
    expect(ids).not.toContain(oldest);
    expect(ids).toContain(res.headers.get("x-eventrail-capture-id"));
  });

  it("keeps at most CAPTURE_LIMITS.workspaceBytes across a workspace's bins, dropping the workspace's oldest", async () => {
    const ws = await stack.newWorkspace("full");
    const bins = [await ws.post("/api/capture-bins", {}), await ws.post("/api/capture-bins", {}), await ws.post("/api/capture-bins", {})];
    const total = async () => (await Promise.all(bins.map((x) => storedBytes(x.id)))).reduce((s, n) => s + n, 0);
    // 100 + 100 + 55 MB, each bin under its own limit; the next 1 MB fills the workspace exactly.
    const perBin = CAPTURE_LIMITS.workspaceBytes / MB - 1;
    await fill(bins[0].id, 100, MB);
    await fill(bins[1].id, 100, MB);
    await fill(bins[2].id, perBin - 200, MB);
    const oldest = (await db.query("SELECT min(id) AS id FROM captured_requests WHERE bin_id = $1", [bins[0].id])).rows[0].id;

    expect((await capture(bins[2].id, new Uint8Array(MB))).status).toBe(200);
    expect(await total()).toBe(CAPTURE_LIMITS.workspaceBytes);
    expect((await capture(bins[2].id, new Uint8Array(MB))).status).toBe(200);
    expect(await total()).toBe(CAPTURE_LIMITS.workspaceBytes);
    expect((await db.query("SELECT 1 FROM captured_requests WHERE id = $1", [oldest])).rowCount).toBe(0);
    // Another workspace's captures are untouched by this one's limit.
    const elsewhere = await a.post("/api/capture-bins", {});
    await capture(elsewhere.id, "still here");
    expect(await storedBytes(elsewhere.id)).toBe(10);
  });
});

describe("signature checks on the server (issue 15 item 9)", () => {
  const SHARED = "check-shared-secret-0123";
  const STANDARD = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  let bin: { id: string; url: string };
  let signer: { id: string };
  let other: { id: string };
  let unsigned: { id: string };

  beforeAll(async () => {
    bin = await a.post("/api/capture-bins", {});
    signer = await a.post("/api/destinations", {
      name: "signer",
      urls: [bin.url],
      sharedSecret: SHARED,
      standardWebhooks: true,
      standardSecret: STANDARD,
    });
    other = await a.post("/api/destinations", {
      name: "other secrets",
      urls: [bin.url],
      sharedSecret: "another-secret-entirely",
      standardWebhooks: true,
    });
    unsigned = await a.post("/api/destinations", { name: "no secrets", urls: [bin.url] });
  });

  const verify = (client: ApiClient, requestId: string, destinationId: string) =>
    client.request("POST", `/api/capture-bins/${bin.id}/requests/${requestId}/verify`, { destinationId });

  it("answers valid for the destination that signed, invalid for another, unverifiable without secrets", async () => {
    await a.post(`/api/destinations/${signer.id}/test`, { type: "track" });
    const [req] = (await a.get(`/api/capture-bins/${bin.id}/requests`)).requests;
    expect(req.signed).toEqual({ xSignature: true, standardWebhooks: true });

    const ok = await verify(a, req.id, signer.id);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ destinationId: signer.id, xSignature: { state: "valid" }, standardWebhooks: { state: "valid" } });
    const wrong = await verify(a, req.id, other.id);
    expect(wrong.body).toMatchObject({ xSignature: { state: "invalid" }, standardWebhooks: { state: "invalid" } });
    expect((await verify(a, req.id, unsigned.id)).body).toMatchObject({
      xSignature: { state: "unverifiable" },
      standardWebhooks: { state: "unverifiable" },
    });

    // Neither secret nor the digest they would give leaves the server: the capture URL is public,
    // so an expected digest would sign whatever body someone posts to it.
    const full = await a.get(`/api/capture-bins/${bin.id}/requests/${req.id}`);
    const otherDigest = crypto.createHmac("sha1", "another-secret-entirely").update(full.body).digest("hex");
    for (const answer of [ok, wrong]) {
      const text = JSON.stringify(answer.body);
      for (const secret of [SHARED, STANDARD, "another-secret-entirely", otherDigest]) expect(text).not.toContain(secret);
    }
  });

  it("checks the bytes as received, answers absent when nothing was signed", async () => {
    const body = Buffer.from([0x7b, 0xff, 0x00, 0x7d]);
    const digest = crypto.createHmac("sha1", SHARED).update(body).digest("hex");
    await capture(bin.id, body, { "x-signature": digest });
    await capture(bin.id, "plain");
    const [plain, raw] = (await a.get(`/api/capture-bins/${bin.id}/requests`)).requests;
    expect((await verify(a, raw.id, signer.id)).body.xSignature.state).toBe("valid");
    expect((await verify(a, plain.id, signer.id)).body).toMatchObject({
      xSignature: { state: "absent" },
      standardWebhooks: { state: "absent" },
    });
  });

  it("keeps to the workspace: another workspace's destination or request is 404", async () => {
    const [req] = (await a.get(`/api/capture-bins/${bin.id}/requests`)).requests;
    const theirs = await b.post("/api/destinations", { name: "theirs", urls: [bin.url], sharedSecret: SHARED });
    expect((await verify(a, req.id, theirs.id)).status).toBe(404);
    expect((await verify(b, req.id, theirs.id)).status).toBe(404);
  });
});
