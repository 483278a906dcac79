// Destination secret rotation (docs/signing.md#secret-rotation): a receiver switches from the old
// secret to the new one in the middle of live traffic, through /v1 and the real worker, and rejects
// nothing; for X-Signature and for Standard Webhooks. Receivers are real HTTP servers on 127.0.0.1
// that verify exactly as docs/signing.md tells receivers to.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../scripts/lib/build";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver, type Received } from "./harness/delivery/receiver";
import { postTracking } from "./harness/tracking";

let ctx: DeliveryContext;
let writeKey: string;
let db: pg.Client;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await startDeliveryContext();
  writeKey = (await ctx.api.get(`/api/sources/${ctx.sourceId}`)).writeKey;
  db = new pg.Client({ connectionString: ctx.stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await Promise.all(receivers.map((r) => r.close()));
  await ctx?.close();
});

const header = (r: Received, name: string) => r.headers[name] as string | undefined;

/** docs/signing.md#verifying-x-signature: the secret's HMAC-SHA1 of the body equals X-Signature or X-Signature-Next. */
function xSignatureOk(secret: string, r: Received): boolean {
  const expected = Buffer.from(crypto.createHmac("sha1", secret).update(r.body, "utf8").digest("hex"));
  return [header(r, "x-signature"), header(r, "x-signature-next")]
    .filter((h): h is string => h !== undefined)
    .some((h) => h.length === expected.length && crypto.timingSafeEqual(Buffer.from(h), expected));
}

/** Standard Webhooks as its own library verifies: any v1 signature in webhook-signature made with the secret. */
function standardOk(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/**
 * A receiver holding one shared secret and one Standard Webhooks secret, answering 401 to a request
 * either check fails (as a real receiver would), 200 otherwise. `switchTo` changes the secrets it holds.
 */
async function verifyingReceiver(secrets: { shared: string; standard: string }) {
  const held = { ...secrets };
  const rejected: Received[] = [];
  const rx = await startReceiver();
  receivers.push(rx);
  rx.respond = (r) => {
    if (xSignatureOk(held.shared, r) && standardOk(held.standard, r)) return { status: 200 };
    rejected.push(r);
    return { status: 401, body: "bad signature" };
  };
  return { rx, rejected, held, switchTo: (s: { shared: string; standard: string }) => Object.assign(held, s) };
}

const SHARED = "old-shared-secret-0123456789";
const STANDARD = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

async function destinationFor(rx: Receiver, path: string) {
  const dest = await ctx.destination({ urls: [`${rx.url}${path}`], sharedSecret: SHARED, standardSecret: STANDARD });
  expect(dest).toMatchObject({ standardWebhooks: true, previousSharedSecret: null, previousStandardSecret: null });
  return dest;
}

const rotate = (id: string, body: Record<string, unknown>) => ctx.api.post(`/api/destinations/${id}/rotate-secret`, body);

/** Sends `n` track calls in one batch through /v1; returns their messageIds. */
async function sendCalls(prefix: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const res = await postTracking(
    ctx.stack.app.url,
    "/v1/batch",
    { batch: ids.map((messageId) => ({ type: "track", event: "Order Completed", userId: "u1", properties: { total: 30 }, messageId })) },
    { writeKey },
  );
  expect(res.status).toBe(200);
  return ids;
}

/** Every delivery of these messages to the destination, once none is pending. */
async function settledDeliveries(destinationId: string, messageIds: string[]) {
  return waitFor(
    async () => {
      const { rows } = await db.query(
        `SELECT m.message_id, d.state, d.attempt_count FROM deliveries d JOIN messages m ON m.id = d.message_row_id
          WHERE d.destination_id = $1 AND m.message_id = ANY($2)`,
        [destinationId, messageIds],
      );
      return rows.length === messageIds.length && rows.every((r) => r.state !== "pending") && rows;
    },
    { what: `${messageIds.length} deliveries to settle`, timeoutMs: 60_000 },
  );
}

const requestsTo = (rx: Receiver, path: string) => rx.requests.filter((r) => r.path === path);

/**
 * The receiver code docs/signing.md#secret-rotation gives, in Node and in Python, run as written on
 * a request as received: for each secret pair, whether xSignatureOk / standardOk accept it.
 */
function docsVerify(r: Received, pairs: { shared: string; standard: string }[]): Record<"node" | "python", [boolean, boolean][]> {
  const docs = fs.readFileSync(path.join(root, "docs/signing.md"), "utf8");
  const section = docs.slice(docs.indexOf("## Secret rotation"));
  const block = (lang: string) => {
    const m = section.match(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``));
    if (!m) throw new Error(`no ${lang} block in docs/signing.md#secret-rotation`);
    // The closing usage line names the reader's own variables (oldSecret, request…): the functions are what is run.
    return m[1].replace(/^(const ok|ok) = .*$/m, "");
  };
  const input = JSON.stringify({ body: Buffer.from(r.body, "utf8").toString("base64"), headers: r.headers, pairs });
  const node = `${block("js")}
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const rawBody = Buffer.from(input.body, "base64");
console.log(JSON.stringify(input.pairs.map((p) => [xSignatureOk(p.shared, rawBody, input.headers), standardOk(p.standard, rawBody, input.headers)])));`;
  const python = `${block("python")}
import json, sys
class Headers(dict):
    def __getitem__(self, k): return dict.__getitem__(self, k.lower())
    def get(self, k, d=None): return dict.get(self, k.lower(), d)
inp = json.load(sys.stdin)
raw_body = base64.b64decode(inp["body"])
headers = Headers({k.lower(): v for k, v in inp["headers"].items()})
print(json.dumps([[x_signature_ok(p["shared"], raw_body, headers), standard_ok(p["standard"], raw_body, headers)] for p in inp["pairs"]]))`;
  return {
    node: JSON.parse(execFileSync(process.execPath, ["-e", node], { input, encoding: "utf8" })),
    python: JSON.parse(execFileSync("python3", ["-c", python], { input, encoding: "utf8" })),
  };
}

describe("rotation with a grace period", () => {
  it("a receiver that switches secrets mid-traffic rejects nothing, for both schemes; after the grace only the new secret signs", async () => {
    const receiver = await verifyingReceiver({ shared: SHARED, standard: STANDARD });
    const { rx, rejected } = receiver;
    const dest = await destinationFor(rx, "/switch");

    // Before: one signature each, the old secret's.
    const before = await sendCalls("rot-before", 5);
    expect((await settledDeliveries(dest.id, before)).every((d) => d.state === "delivered")).toBe(true);
    const first = requestsTo(rx, "/switch")[0];
    expect(header(first, "x-signature-next")).toBeUndefined();
    expect(header(first, "webhook-signature")!.split(" ")).toHaveLength(1);

    // Rotate both, with 24 hours of grace.
    const shared = await rotate(dest.id, { secret: "sharedSecret", graceMinutes: 1440 });
    const standard = await rotate(dest.id, { secret: "standardSecret", graceMinutes: 1440 });
    expect(shared.value).toMatch(/^[0-9a-f]{48}$/);
    expect(standard.value).toMatch(/^whsec_/);
    const graceEnd = standard.destination.previousStandardSecret.expiresAt;
    expect(Date.parse(graceEnd) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(standard.destination).toMatchObject({
      previousSharedSecret: { last4: SHARED.slice(-4), expiresAt: shared.destination.previousSharedSecret.expiresAt },
      previousStandardSecret: { last4: STANDARD.slice(-4) },
    });

    // Traffic flows while the receiver switches: it holds the old secrets until it has seen 10 more
    // requests, then the new ones. Calls keep arriving before and after that point.
    const seen = requestsTo(rx, "/switch").length;
    const answer = rx.respond;
    rx.respond = (r, i) => {
      if (requestsTo(rx, "/switch").length === seen + 10) receiver.switchTo({ shared: shared.value, standard: standard.value });
      return answer(r, i);
    };
    const during: string[] = [];
    for (let round = 0; round < 4; round++) during.push(...(await sendCalls(`rot-during-${round}`, 8)));
    const settled = await settledDeliveries(dest.id, during);
    expect(receiver.held).toEqual({ shared: shared.value, standard: standard.value });
    expect(rejected).toEqual([]);
    expect(settled.filter((d) => d.state !== "delivered" || d.attempt_count !== 1)).toEqual([]);

    // During the grace: X-Signature is the old secret's, X-Signature-Next the new one's; webhook-signature carries both, new first.
    const mid = requestsTo(rx, "/switch").at(-1)!;
    const hmac = (k: string) => crypto.createHmac("sha1", k).update(mid.body, "utf8").digest("hex");
    expect(header(mid, "x-signature")).toBe(hmac(SHARED));
    expect(header(mid, "x-signature-next")).toBe(hmac(shared.value));
    expect(header(mid, "webhook-signature")!.split(" ")).toHaveLength(2);
    expect(standardOk(STANDARD, mid) && standardOk(standard.value, mid)).toBe(true);
    // The docs' Node and Python receivers accept it with either pair of secrets, and refuse a stranger's.
    const stranger = { shared: "someone-else", standard: `whsec_${Buffer.alloc(32, 9).toString("base64")}` };
    const pairs = [{ shared: SHARED, standard: STANDARD }, { shared: shared.value, standard: standard.value }, stranger];
    const duringGrace = [
      [true, true],
      [true, true],
      [false, false],
    ];
    expect(docsVerify(mid, pairs)).toEqual({ node: duringGrace, python: duringGrace });

    // The grace period ends (its stored end passes; nothing else happens): only the new secret signs.
    await db.query(
      `UPDATE destinations SET previous_shared_secret_expires_at = now(), previous_standard_secret_expires_at = now() WHERE id = $1`,
      [dest.id],
    );
    const after = await sendCalls("rot-after", 5);
    expect((await settledDeliveries(dest.id, after)).every((d) => d.state === "delivered")).toBe(true);
    expect(rejected).toEqual([]);
    const last = requestsTo(rx, "/switch").at(-1)!;
    expect(JSON.parse(last.body).messageId).toMatch(/^rot-after-/);
    expect(header(last, "x-signature")).toBe(crypto.createHmac("sha1", shared.value).update(last.body, "utf8").digest("hex"));
    expect(header(last, "x-signature-next")).toBeUndefined();
    expect(header(last, "webhook-signature")!.split(" ")).toHaveLength(1);
    expect(xSignatureOk(SHARED, last) || standardOk(STANDARD, last)).toBe(false);
    const afterGrace = [
      [false, false],
      [true, true],
      [false, false],
    ];
    expect(docsVerify(last, pairs)).toEqual({ node: afterGrace, python: afterGrace });
    expect((await ctx.api.get(`/api/destinations/${dest.id}`)).previousSharedSecret).toBeNull();

    // Maintenance clears the ended secrets from the row.
    const { clearEndedSecrets } = await import("../lib/maintenance/ended-secrets");
    expect(await clearEndedSecrets({ db })).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query(
      `SELECT previous_shared_secret, previous_standard_secret, previous_shared_secret_expires_at FROM destinations WHERE id = $1`,
      [dest.id],
    );
    expect(rows[0]).toEqual({ previous_shared_secret: null, previous_standard_secret: null, previous_shared_secret_expires_at: null });
  });

  it('grace "none" switches at once: the next request carries only the new signatures', async () => {
    const { rx } = await verifyingReceiver({ shared: SHARED, standard: STANDARD });
    const dest = await destinationFor(rx, "/none");
    const shared = await rotate(dest.id, { secret: "sharedSecret", graceMinutes: 0 });
    const standard = await rotate(dest.id, { secret: "standardSecret" });
    expect(standard.destination).toMatchObject({ previousSharedSecret: null, previousStandardSecret: null });
    // The receiver has not switched: it rejects the very next request, as it must be told.
    const ids = await sendCalls("rot-none", 1);
    await settledDeliveries(dest.id, ids);
    const r = requestsTo(rx, "/none")[0];
    expect(header(r, "x-signature-next")).toBeUndefined();
    expect(xSignatureOk(shared.value, r) && standardOk(standard.value, r)).toBe(true);
    expect(xSignatureOk(SHARED, r) || standardOk(STANDARD, r)).toBe(false);
  });

  it("rotating again during a grace period ends the older secret's at once (one previous secret at a time)", async () => {
    const { rx } = await verifyingReceiver({ shared: SHARED, standard: STANDARD });
    const dest = await destinationFor(rx, "/twice");
    const second = await rotate(dest.id, { secret: "sharedSecret", graceMinutes: 60 });
    const third = await rotate(dest.id, { secret: "sharedSecret", graceMinutes: 60, value: "third-shared-secret-abcdef" });
    expect(third.value).toBe("third-shared-secret-abcdef");
    expect(third.destination.previousSharedSecret.last4).toBe(second.value.slice(-4));
    const ids = await sendCalls("rot-twice", 1);
    await settledDeliveries(dest.id, ids);
    const r = requestsTo(rx, "/twice")[0];
    expect(xSignatureOk(second.value, r) && xSignatureOk(third.value, r)).toBe(true);
    expect(xSignatureOk(SHARED, r)).toBe(false);
  });
});

describe("the new secret is shown once", () => {
  it("is in the rotation's answer only: not in the destination, the list, the audit log, the attempt log or the processes' logs", async () => {
    const { rx } = await verifyingReceiver({ shared: SHARED, standard: STANDARD });
    const dest = await destinationFor(rx, "/once");
    const shared = await rotate(dest.id, { secret: "sharedSecret", graceMinutes: 60 });
    const standard = await rotate(dest.id, { secret: "standardSecret", graceMinutes: 60 });
    const ids = await sendCalls("rot-once", 1);
    await settledDeliveries(dest.id, ids);
    const attempts = (await ctx.api.get(`/api/attempts?destinationId=${dest.id}`)).attempts;
    const detail = await ctx.api.get(`/api/attempts/${attempts[0].id}`);
    expect(detail.requestHeaders).toMatchObject({
      "x-signature": expect.any(String),
      "x-signature-next": expect.any(String),
      "webhook-signature": expect.stringMatching(/^v1,\S+ v1,\S+$/),
    });
    const audit = (await ctx.api.get(`/api/audit?resourceId=${dest.id}`)).events;
    expect(
      audit.filter((e: { action: string }) => e.action === "destination.rotate_secret").map((e: { changes: unknown }) => e.changes),
    ).toEqual([
      { standardSecret: { before: "changed", after: "changed" }, graceMinutes: { before: null, after: 60 } },
      { sharedSecret: { before: "changed", after: "changed" }, graceMinutes: { before: null, after: 60 } },
    ]);
    const seen = JSON.stringify([
      await ctx.api.get(`/api/destinations/${dest.id}`),
      await ctx.api.get("/api/destinations"),
      audit,
      detail,
      ctx.stack.app.output(),
      ...ctx.stack.workers.map((w) => w.output()),
    ]);
    for (const secret of [shared.value, standard.value, SHARED, STANDARD]) expect(seen).not.toContain(secret);
    expect(seen).not.toContain(standard.value.slice("whsec_".length));
  });

  it("refuses a rotation with nothing to rotate, or to the same or an invalid secret, and a viewer's", async () => {
    const plain = await ctx.destination({ urls: ["http://127.0.0.1:9/plain"] });
    const none = await ctx.api.request("POST", `/api/destinations/${plain.id}/rotate-secret`, { secret: "sharedSecret", graceMinutes: 60 });
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/no shared secret to rotate/);
    const signed = await ctx.destination({ urls: ["http://127.0.0.1:9/signed"], sharedSecret: SHARED });
    const same = await ctx.api.request("POST", `/api/destinations/${signed.id}/rotate-secret`, { secret: "sharedSecret", value: SHARED });
    expect(same.status).toBe(422);
    expect(same.body.error.fields).toEqual({ value: ["This is the current shared secret: a rotation needs a new one"] });
    const bad = await ctx.api.request("POST", `/api/destinations/${signed.id}/rotate-secret`, {
      secret: "standardSecret",
      graceMinutes: 10081,
      value: "not-whsec",
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["graceMinutes", "value"]);
    expect((await ctx.api.get(`/api/destinations/${signed.id}`)).previousSharedSecret).toBeNull();
  });

  it("a PATCH that replaces a secret ends its grace period at once", async () => {
    const signed = await ctx.destination({ urls: ["http://127.0.0.1:9/patched"], sharedSecret: SHARED });
    await rotate(signed.id, { secret: "sharedSecret", graceMinutes: 60 });
    const kept = await ctx.api.patch(`/api/destinations/${signed.id}`, { name: "renamed" });
    expect(kept.previousSharedSecret).not.toBeNull();
    const replaced = await ctx.api.patch(`/api/destinations/${signed.id}`, { sharedSecret: "replaced-by-hand-0123" });
    expect(replaced.previousSharedSecret).toBeNull();
  });
});

describe("X-Signature-Next is Eventrail's header", () => {
  it("is refused as a custom header at save, in any letter case, on create and on update", async () => {
    const created = await ctx.api.request("POST", "/api/destinations", {
      name: "forger",
      urls: ["http://127.0.0.1:9/x"],
      headers: [{ name: "X-Signature-Next", value: "forged" }],
    });
    expect(created.status).toBe(422);
    expect(created.body.error.fields).toEqual({ "headers.0.name": ["Eventrail sets this header itself; it cannot be overridden"] });
    const dest = await ctx.destination({ urls: ["http://127.0.0.1:9/y"] });
    const patched = await ctx.api.request("PATCH", `/api/destinations/${dest.id}`, {
      headers: [{ name: "x-signature-NEXT", value: "forged" }],
    });
    expect(patched.status).toBe(422);
    expect(patched.body.error.fields).toHaveProperty(["headers.0.name"]);
  });
});
