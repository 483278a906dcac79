// Request shape (docs/request-shape.md): body mappings copied from Segment, PUT/PATCH, URL templates.
// Calls go in through /v1 and out to a real receiver on 127.0.0.1; the bodies expected are the
// ones Segment's own documentation gives for the same mapping and input.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { postTracking } from "./harness/tracking";

let ctx: DeliveryContext;
let writeKey: string;
let rx: Receiver;
let db: pg.Client;

beforeAll(async () => {
  ctx = await startDeliveryContext();
  writeKey = (await ctx.api.get(`/api/sources/${ctx.sourceId}`)).writeKey;
  rx = await startReceiver();
  db = new pg.Client({ connectionString: ctx.stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await rx?.close();
  await ctx?.close();
});

const send = async (call: Record<string, unknown>) => {
  const res = await postTracking(ctx.stack.app.url, `/v1/${call.type}`, call, { writeKey });
  expect(res.status).toBe(200);
};
const arrived = (path: string) => waitFor(async () => rx.requests.find((r) => r.path === path), { what: `a request to ${path}` });

/** The delivery of a message (by its messageId) to a destination once settled, with its attempts. */
async function settled(messageId: string, destinationId: string) {
  return waitFor(
    async () => {
      const { rows } = await db.query(
        `SELECT d.state, d.last_error, d.attempt_count FROM deliveries d JOIN messages m ON m.id = d.message_row_id WHERE m.message_id = $1 AND d.destination_id = $2`,
        [messageId, destinationId],
      );
      if (rows.length === 0 || rows[0].state === "pending") return null;
      const attempts = (
        await db.query(
          `SELECT a.url, a.outcome, a.error_kind, a.error_text FROM attempts a JOIN messages m ON m.id = a.message_row_id WHERE m.message_id = $1 AND a.destination_id = $2`,
          [messageId, destinationId],
        )
      ).rows;
      return { ...rows[0], attempts };
    },
    { what: `delivery of ${messageId} to settle` },
  );
}

describe("body mappings copied from Segment", () => {
  it('Webhooks (Actions) default Data {"@path": "$."}: the receiver gets the stored event itself, byte for byte', async () => {
    // segmentio/action-destinations, destinations/webhook/send: data defaults to { '@path': '$.' } and is sent as the JSON body.
    await ctx.destination({ urls: [`${rx.url}/default`], mapping: { "@path": "$." } });
    await send({
      type: "track",
      event: "Order Completed",
      userId: "u1",
      properties: { total: 30, items: [{ sku: "a" }] },
      messageId: "rs-default",
    });
    const req = await arrived("/default");
    const { rows } = await db.query(`SELECT payload::text AS p FROM messages WHERE message_id = 'rs-default'`);
    expect(req.body).toBe(JSON.stringify(JSON.parse(rows[0].p)));
    expect(JSON.parse(req.body)).toMatchObject({
      type: "track",
      event: "Order Completed",
      properties: { total: 30 },
      messageId: "rs-default",
    });
    expect(req.method).toBe("POST");
  });

  it("the Mapping Kit README's examples give the README's outputs exactly", async () => {
    // The first example of the Mapping Kit's README in Segment's action-destinations repository (its core package).
    await ctx.destination({
      urls: [`${rx.url}/rogers`],
      mapping: {
        name: "Mr. Rogers",
        neighborhood: { "@path": "$.properties.neighborhood" },
        greeting: { "@template": "Won't you be my {{properties.noun}}?" },
      },
    });
    await send({
      type: "track",
      userId: "fred",
      event: "Sweater On",
      context: { library: { name: "analytics.js", version: "2.11.1" } },
      properties: { neighborhood: "Latrobe", noun: "neighbor", sweaterColor: "red" },
    });
    expect((await arrived("/rogers")).body).toBe('{"name":"Mr. Rogers","neighborhood":"Latrobe","greeting":"Won\'t you be my neighbor?"}');

    // …and "Mixing raw values and directives", on an identify call's traits.
    await ctx.destination({
      urls: [`${rx.url}/gibbons`],
      mapping: { action: "create", userId: { "@path": "$.traits.email" }, userProperties: { "@path": "$.traits" } },
    });
    const traits = {
      name: "Peter Gibbons",
      email: "peter@example.com",
      plan: "premium",
      logins: 5,
      address: { street: "6th St", city: "San Francisco", state: "CA", postalCode: "94103", country: "USA" },
    };
    await send({ type: "identify", userId: "peter", traits });
    expect((await arrived("/gibbons")).body).toBe(
      JSON.stringify({ action: "create", userId: "peter@example.com", userProperties: traits }),
    );
  });

  it("refuses an invalid mapping, method or host template at save, at the field, and saves nothing", async () => {
    const before = (await ctx.api.get("/api/destinations")).destinations.length;
    const bad = await ctx.api.request("POST", "/api/destinations", {
      name: "bad",
      urls: [`http://{{context.tenant}}.example.com/hook`],
      method: "GET",
      // As pasted: JSON text (a `then` key in an object literal reads as a thenable to the linter).
      mapping: JSON.parse('{"email": {"@if": {"then": {"@path": "$.traits.email"}}}, "n": {"@replace": {"pattern": "a", "value": "b"}}}'),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toEqual({
      "urls.0": ["Templates go in the path or query only: the scheme, host and port are fixed when you save"],
      method: ["One of POST, PUT, PATCH"],
      "mapping.email.@if": ['@if needs an exists or a blank key (a directive such as {"@path": "$.userId"})'],
      "mapping.n.@replace": [
        "@replace is a Segment directive Eventrail does not support; supported: @path, @template, @if, @arrayPath, @literal",
      ],
    });
    expect((await ctx.api.get("/api/destinations")).destinations.length).toBe(before);
  });
});

describe("method and URL templates", () => {
  it("sends PUT and PATCH; without a mapping the body is the seed's", async () => {
    const put = await ctx.destination({ urls: [`${rx.url}/put`], method: "PUT" });
    expect(put).toMatchObject({ method: "PUT", mapping: null });
    const patchDest = await ctx.destination({ urls: [`${rx.url}/patch`], method: "PATCH", mapping: { id: { "@path": "$.messageId" } } });
    await send({ type: "track", event: "E", userId: "u", messageId: "rs-methods" });
    expect((await arrived("/put")).method).toBe("PUT");
    const patch = await arrived("/patch");
    expect(patch).toMatchObject({ method: "PATCH", body: '{"id":"rs-methods"}' });
    // The seed's body, unchanged, for the destination without a mapping.
    expect(JSON.parse((await arrived("/put")).body)).toMatchObject({ version: 1, type: "track", event: "E", messageId: "rs-methods" });

    // "Send test" sends what the worker would: the method and the mapped body.
    const before = rx.requests.length;
    await ctx.api.post(`/api/destinations/${patchDest.id}/test`, { type: "track", payload: { messageId: "rs-test-send" } });
    // Only the test's requests: the event above may still be on its way to the earlier tests' destinations.
    const tests = rx.requests.slice(before).filter((r) => r.body.includes("rs-test-send"));
    expect(tests).toMatchObject([{ path: "/patch", method: "PATCH", body: '{"id":"rs-test-send"}' }]);

    // The request log shows each attempt's method as sent (the drawer and "Copy as cURL" use it).
    for (const d of [put, patchDest]) expect((await settled("rs-methods", d.id)).state).toBe("delivered");
    const methods = async (destinationId: string) => {
      const { attempts } = await ctx.api.get(`/api/attempts?destinationId=${destinationId}`);
      const details = await Promise.all(attempts.map((a: { id: string }) => ctx.api.get(`/api/attempts/${a.id}`)));
      return [...new Set(details.map((d: { method: string }) => d.method))];
    };
    expect(await methods(put.id)).toEqual(["PUT"]);
    expect(await methods(patchDest.id)).toEqual(["PATCH"]);
    const post = await ctx.destination({ urls: [`${rx.url}/post`] });
    await send({ type: "track", event: "E", userId: "u", messageId: "rs-methods-post" });
    expect((await settled("rs-methods-post", post.id)).state).toBe("delivered");
    expect(await methods(post.id)).toEqual(["POST"]);
  });

  it("fills path and query templates percent-encoded; an empty value is a failed attempt with its reason, nothing sent", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/users/{{userId}}?plan={{traits.plan}}`], method: "PUT" });
    expect(dest.urls).toEqual([`${rx.url}/users/{{userId}}?plan={{traits.plan}}`]);
    await send({ type: "identify", userId: "ann/../admin?x=1#y", traits: { plan: "pro plus" }, messageId: "rs-tpl" });
    const req = await arrived("/users/ann%2F..%2Fadmin%3Fx%3D1%23y?plan=pro%20plus");
    expect(req.method).toBe("PUT");
    expect((await settled("rs-tpl", dest.id)).state).toBe("delivered");

    const seen = rx.requests.length;
    await send({ type: "identify", anonymousId: "anon-1", traits: { plan: "free" }, messageId: "rs-empty" });
    const d = await settled("rs-empty", dest.id);
    expect(d).toMatchObject({ state: "failed", attempt_count: 1 });
    expect(d.attempts).toEqual([
      {
        url: `${rx.url}/users/{{userId}}?plan={{traits.plan}}`,
        outcome: "failed",
        error_kind: "internal",
        error_text: "URL template {{userId}} rendered empty for this event: not sent",
      },
    ]);
    expect(d.last_error).toMatch(/rendered empty/);
    expect(rx.requests.slice(seen).filter((r) => r.path.startsWith("/users/"))).toEqual([]);
  });
});

describe("the attempt log of a URL template", () => {
  it("shows the URL as configured (the template) and the URL the call rendered it to; none for a plain URL", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/accounts/{{userId}}/events`, `${rx.url}/plain-log`], mode: "every" });
    await send({ type: "track", event: "E", userId: "zoë/1", messageId: "rs-sent-to" });
    expect((await settled("rs-sent-to", dest.id)).state).toBe("delivered");
    const { attempts } = await ctx.api.get(`/api/attempts?destinationId=${dest.id}`);
    const details = await Promise.all(attempts.map((a: { id: string }) => ctx.api.get(`/api/attempts/${a.id}`)));
    const byUrl = Object.fromEntries(details.map((d) => [d.url, d.sentTo]));
    expect(byUrl).toEqual({
      [`${rx.url}/accounts/{{userId}}/events`]: `${rx.url}/accounts/zo%C3%AB%2F1/events`,
      [`${rx.url}/plain-log`]: null,
    });
    // The request went where the log says.
    expect(rx.requests.some((r) => r.path === "/accounts/zo%C3%AB%2F1/events")).toBe(true);
  });
});

describe("preview", () => {
  it("renders the request each recent call would make, as the worker would send it", async () => {
    await send({ type: "identify", userId: "zoë", traits: { email: "zoe@example.com", plan: "pro" }, messageId: "rs-preview" });
    await waitFor(async () => (await db.query(`SELECT 1 FROM messages WHERE message_id = 'rs-preview'`)).rowCount === 1, {
      what: "the call to be stored",
    });
    const preview = await ctx.api.post("/api/destinations/mapping-preview", {
      sourceIds: [ctx.sourceId],
      urls: [`${rx.url}/users/{{userId}}`, `${rx.url}/plain`],
      method: "PATCH",
      mapping: { email: { "@path": "$.traits.email" }, plan: { "@template": "{{traits.plan}}!" } },
      headers: [{ name: "Authorization" }],
      limit: 1,
    });
    expect(preview.requests).toEqual([
      {
        messageId: "rs-preview",
        type: "identify",
        event: null,
        method: "PATCH",
        urls: [
          { url: `${rx.url}/users/{{userId}}`, sendTo: `${rx.url}/users/zo%C3%AB`, error: null },
          { url: `${rx.url}/plain`, sendTo: `${rx.url}/plain`, error: null },
        ],
        headers: { Authorization: "••••", "content-type": "application/json", "user-agent": "Eventrail.io/1.0" },
        body: '{"email":"zoe@example.com","plan":"pro!"}',
      },
    ]);
    const bad = await ctx.api.request("POST", "/api/destinations/mapping-preview", {
      sourceIds: [ctx.sourceId],
      urls: [`${rx.url}/x`],
      mapping: { a: { "@path": 1 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toEqual({ "mapping.a.@path": ["Should be a string or a mapping directive, not a number"] });
  });
});

describe("where features meet (issue 47)", () => {
  it("event text is never expanded as a template, and a . or .. value never moves a request", async () => {
    const dest = await ctx.destination({
      urls: [`${rx.url}/meet/v1/users/{{userId}}`],
      method: "PUT",
      mapping: { note: { "@template": "{{{properties.note}}}" } },
    });
    const note = "{{properties.big}}{{{properties.big}}}";
    await send({ type: "track", event: "E", userId: "ann", properties: { note, big: "x".repeat(20_000) }, messageId: "rs-once" });
    expect((await arrived("/meet/v1/users/ann")).body).toBe(JSON.stringify({ note }));

    const seen = rx.requests.length;
    await send({ type: "track", event: "E", userId: "..", messageId: "rs-dots" });
    const d = await settled("rs-dots", dest.id);
    expect(d).toMatchObject({ state: "failed", attempt_count: 1 });
    expect(d.attempts[0].error_text).toBe('URL template {{userId}} rendered "." or "..", which would change the URL\'s path: not sent');
    expect(rx.requests.slice(seen).filter((r) => r.path.startsWith("/meet/"))).toEqual([]);
  });

  it("the preview shows the body sent, big integers included, in both number forms", async () => {
    const text = '{"type":"track","event":"Big","userId":"u-big","messageId":"rs-big","properties":{"orderId":9007199254740993}}';
    const forms = ["canonical", "exact"] as const;
    for (const numbers of forms) await ctx.destination({ urls: [`${rx.url}/big-${numbers}`], mapping: { "@path": "$." }, numbers });
    const res = await postTracking(ctx.stack.app.url, "/v1/track", text, { writeKey });
    expect(res.status).toBe(200);
    for (const numbers of forms) {
      const sent = (await arrived(`/big-${numbers}`)).body;
      expect(sent).not.toContain("literal");
      expect(sent).toContain(numbers === "exact" ? '"orderId":9007199254740993' : '"orderId":9007199254740992');
      const preview = await ctx.api.post("/api/destinations/mapping-preview", {
        sourceIds: [ctx.sourceId],
        urls: [`${rx.url}/big-${numbers}`],
        mapping: { "@path": "$." },
        numbers,
        limit: 20,
      });
      expect(preview.requests.find((r: { messageId: string }) => r.messageId === "rs-big").body).toBe(sent);
    }
  });

  it("a preview past its budget answers 422 with the reason instead of building it", async () => {
    for (const i of [1, 2])
      await send({ type: "track", event: "Wide", userId: "w", properties: { s: "y".repeat(30_000) }, messageId: `rs-wide-${i}` });
    await waitFor(async () => (await db.query(`SELECT 1 FROM messages WHERE message_id LIKE 'rs-wide-%'`)).rowCount === 2, {
      what: "the calls to be stored",
    });
    const copies = (n: number) => ({ list: Array.from({ length: n }, () => ({ "@path": "$.properties" })) });
    const over = await ctx.api.request("POST", "/api/destinations/mapping-preview", {
      sourceIds: [ctx.sourceId],
      urls: [`${rx.url}/wide`],
      mapping: copies(25),
      limit: 2,
    });
    expect(over.status).toBe(422);
    expect(over.body.error.message).toBe("The preview's bodies come to more than 1 MB: preview fewer calls or map less");
    // One body past 1 MB is that call's reason, as when it is sent.
    const huge = await ctx.api.post("/api/destinations/mapping-preview", {
      sourceIds: [ctx.sourceId],
      urls: [`${rx.url}/wide`],
      mapping: copies(40),
      limit: 1,
    });
    expect(huge.requests[0].body).toBeNull();
    expect(huge.requests[0].urls[0].error).toBe(
      "mapping could not be applied to this event: it gives a body larger than 1 MB for this event; not sent",
    );
  });
});
