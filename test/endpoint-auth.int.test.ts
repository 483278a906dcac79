// Endpoint authentication with OAuth 2.0 client credentials (docs/endpoint-auth.md): a real
// authorization server (oidc-provider, test/harness/oauth-server.ts) issues JWT access tokens on
// 127.0.0.1, receivers verify them (signature, issuer, audience, expiry) and answer 401 otherwise,
// and the real worker delivers. Token requests are counted at the authorization server. Mutual TLS
// against a real HTTPS receiver that requires client certificates from a test CA.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withClient } from "./harness/delivery/direct";
import { waitFor } from "./harness/stack";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { startMutualTlsReceiver, startReceiver, type Receiver } from "./harness/delivery/receiver";
import { issue, makeCa } from "./harness/test-ca";
import { AUDIENCE, type OAuthClient, type OAuthServer, SHORT_AUDIENCE, startOAuthServer } from "./harness/oauth-server";

let ctx: DeliveryContext;
let oauth: OAuthServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await startDeliveryContext({ EVENTRAIL_RETRY_BASE_MS: "300", EVENTRAIL_RETRY_MAX_MS: "1000" });
  oauth = await startOAuthServer();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await oauth?.close();
  await ctx?.close();
});

/** A receiver that takes a request only with a valid token for `audience` and not in `revoked`, else 401. */
async function guardedReceiver(audience = AUDIENCE) {
  const rx = await startReceiver();
  receivers.push(rx);
  const revoked = new Set<string>();
  const refused: string[] = [];
  rx.respond = (r) => {
    const authorization = r.headers.authorization;
    const why = oauth.checkBearer(authorization, audience) ?? (revoked.has(authorization!) ? "revoked" : null);
    if (why) {
      refused.push(why);
      return { status: 401, body: why };
    }
    return { status: 200 };
  };
  return { rx, revoked, refused };
}

const authFor = (client: OAuthClient, audience = AUDIENCE) => ({
  type: "oauth2",
  tokenUrl: oauth.tokenUrl,
  clientId: client.clientId,
  clientSecret: client.clientSecret,
  scope: "events:write",
  audience,
  method: client.method,
});

let seq = 0;
const track = (prefix: string, n: number) =>
  Array.from({ length: n }, () => ({ type: "track", event: "Order Completed", messageId: `${prefix}-${++seq}`, userId: "u1" }));

const tokenRequests = (client: OAuthClient) => oauth.tokenRequests.get(client.clientId) ?? 0;

async function attemptsOf(destinationId: string) {
  return (await ctx.api.get(`/api/attempts?destinationId=${destinationId}&limit=100`)).attempts as {
    id: string;
    outcome: string;
    errorKind: string | null;
    responseStatus: number | null;
  }[];
}

describe("OAuth2 client credentials", () => {
  it("gets one token for many deliveries at once and reuses it for the next ones", async () => {
    const { rx, refused } = await guardedReceiver();
    const client = oauth.clients.basic;
    const before = tokenRequests(client);
    const dest = await ctx.destination({ urls: [`${rx.url}/reuse`], auth: authFor(client) });
    const first = await ctx.send(dest.id, track("reuse", 10));
    for (const id of first) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    const second = await ctx.send(dest.id, track("reuse", 5));
    for (const id of second) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(rx.requests).toHaveLength(15);
    expect(refused).toEqual([]);
    expect(new Set(rx.requests.map((r) => r.headers.authorization)).size).toBe(1);
    expect(tokenRequests(client) - before).toBe(1);
  });

  it("never uses a token in its last 60 s: one that lives only 60 s is fetched for each round (client_secret_post)", async () => {
    const { rx, refused } = await guardedReceiver(SHORT_AUDIENCE);
    const client = oauth.clients.post;
    const before = tokenRequests(client);
    const dest = await ctx.destination({ urls: [`${rx.url}/short`], auth: authFor(client, SHORT_AUDIENCE) });
    for (const id of await ctx.send(dest.id, track("short", 1))) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    for (const id of await ctx.send(dest.id, track("short", 1))) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(refused).toEqual([]);
    expect(tokenRequests(client) - before).toBe(2);
    expect(rx.requests[0].headers.authorization).not.toBe(rx.requests[1].headers.authorization);
  });

  it("drops a token the endpoint answers 401 to and sends once more with a fresh one, in one attempt", async () => {
    const { rx, revoked, refused } = await guardedReceiver();
    const client = oauth.clients.basic;
    const dest = await ctx.destination({ urls: [`${rx.url}/revoked`], auth: authFor(client) });
    const [warm] = await ctx.send(dest.id, track("revoked", 1));
    expect((await ctx.settled(warm)).deliveries[0].state).toBe("delivered");
    const before = tokenRequests(client);
    revoked.add(rx.requests[0].headers.authorization as string);
    const [id] = await ctx.send(dest.id, track("revoked", 1));
    expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(refused).toEqual(["revoked"]);
    expect(tokenRequests(client) - before).toBe(1);
    expect(rx.requests).toHaveLength(3);
    expect(rx.requests[2].headers.authorization).not.toBe(rx.requests[1].headers.authorization);
    const detail = await ctx.api.get(`/api/messages/${id}`);
    const attempts = (await attemptsOf(dest.id)).filter((a) => a.responseStatus !== null);
    expect(attempts.map((a) => [a.outcome, a.responseStatus])).toEqual([
      ["success", 200],
      ["success", 200],
    ]);
    expect(detail.deliveries[0].attemptCount).toBe(1);
  });

  it("rotates the client secret with grace: the old one gets tokens while the server refuses the new one; at once, the new one alone", async () => {
    const { rx, refused } = await guardedReceiver();
    const client = oauth.clients.post;
    const dest = await ctx.destination({ urls: [`${rx.url}/rotate`], auth: authFor(client) });
    const rotate = (body: object) => ctx.api.request("POST", `/api/destinations/${dest.id}/rotate-secret`, body);
    // The authorization server issues client secrets: a rotation names the new one.
    const noValue = await rotate({ secret: "authClientSecret", graceMinutes: 60 });
    expect(noValue.status).toBe(422);
    expect(Object.keys(noValue.body.error.fields)).toEqual(["value"]);

    // Not registered at the server yet: with grace, the previous secret gets the token.
    const rotated = await rotate({ secret: "authClientSecret", graceMinutes: 60, value: "not-yet-registered-1234" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.destination.auth.clientSecret).toEqual({ set: true, last4: "1234" });
    expect(rotated.body.destination.auth.previousClientSecret).toEqual({
      last4: client.clientSecret.slice(-4),
      expiresAt: expect.any(String),
    });
    const graceEnd = Date.parse(rotated.body.destination.auth.previousClientSecret.expiresAt) - Date.now();
    expect(graceEnd).toBeGreaterThan(59 * 60_000);
    expect(graceEnd).toBeLessThanOrEqual(60 * 60_000);
    const [id] = await ctx.send(dest.id, track("rotate", 1));
    expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(refused).toEqual([]);
    // An edit that keeps the secret keeps the grace.
    const patched = await ctx.api.patch(`/api/destinations/${dest.id}`, { auth: { ...authFor(client), clientSecret: undefined } });
    expect(patched.auth.previousClientSecret).toEqual(rotated.body.destination.auth.previousClientSecret);

    // Rotated again at once, to a secret the server does not know: nothing falls back, nothing is sent.
    const now = await rotate({ secret: "authClientSecret", graceMinutes: 0, value: "still-unknown-5678" });
    expect(now.body.destination.auth.previousClientSecret).toBeNull();
    const [failing] = await ctx.send(dest.id, track("rotate", 1));
    const [attempt] = await waitFor(async () => {
      const a = (await attemptsOf(dest.id)).filter((x) => x.errorKind === "auth");
      return a.length > 0 && a;
    });
    expect((await ctx.api.get(`/api/attempts/${attempt.id}`)).errorText).toMatch(/^token request failed: HTTP 401 invalid_client/);
    expect(rx.requests.filter((r) => r.path === "/rotate")).toHaveLength(1);
    expect(failing).toBeTruthy();
    const audit = (await ctx.api.get(`/api/audit?resourceId=${dest.id}`)).events as { action: string; changes: unknown }[];
    expect(audit.filter((e) => e.action === "destination.rotate_secret").map((e) => e.changes)).toEqual([
      { authClientSecret: { before: "changed", after: "changed" }, graceMinutes: { before: null, after: 0 } },
      { authClientSecret: { before: "changed", after: "changed" }, graceMinutes: { before: null, after: 60 } },
    ]);
    const shown = JSON.stringify([
      rotated.body.destination,
      patched,
      now.body.destination,
      audit,
      await ctx.api.get(`/api/destinations/${dest.id}`),
    ]);
    for (const secret of [client.clientSecret, "not-yet-registered-1234", "still-unknown-5678"]) expect(shown).not.toContain(secret);
  });

  it("fails attempts with `auth` while the token server is down, retries them, and delivers when it is back", async () => {
    const { rx, refused } = await guardedReceiver();
    const client = oauth.clients.basic;
    const dest = await ctx.destination({ urls: [`${rx.url}/down`], auth: authFor(client) });
    await oauth.stop();
    let id: string;
    try {
      [id] = await ctx.send(dest.id, track("down", 1));
      const failing = await waitFor(
        async () => {
          const attempts = await attemptsOf(dest.id);
          return attempts.length >= 2 && attempts;
        },
        { timeoutMs: 30_000, what: "two failed attempts while the token server is down" },
      );
      expect(failing.every((a) => a.errorKind === "auth" && a.outcome === "retry")).toBe(true);
      const detail = await ctx.api.get(`/api/attempts/${failing[0].id}`);
      expect(detail.errorText).toMatch(/token request failed/);
      expect(rx.requests).toHaveLength(0);
    } finally {
      await oauth.start();
    }
    expect((await ctx.settled(id!)).deliveries[0].state).toBe("delivered");
    expect(rx.requests).toHaveLength(1);
    expect(refused).toEqual([]);
  });

  it("sends a batch with the same bearer token as single events (docs/request-shape.md#batching)", async () => {
    const { rx, refused } = await guardedReceiver();
    const client = oauth.clients.post;
    const dest = await ctx.destination({ urls: [`${rx.url}/batch`], auth: authFor(client), batch: { size: 3, maxWaitMs: 200 } });
    const ids = await ctx.send(dest.id, track("batch", 3));
    for (const id of ids) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(refused).toEqual([]);
    expect(rx.requests.map((r) => JSON.parse(r.body).length)).toEqual([3]);
  });

  it("refuses a token request to a wrong secret as `auth`, with the server's error and without sending", async () => {
    const { rx } = await guardedReceiver();
    const dest = await ctx.destination({
      urls: [`${rx.url}/wrong`],
      auth: { ...authFor(oauth.clients.basic), clientSecret: "not-the-secret-0000" },
    });
    await ctx.send(dest.id, track("wrong", 1));
    const [attempt] = await waitFor(async () => {
      const a = await attemptsOf(dest.id);
      return a.length > 0 && a;
    });
    expect(attempt.errorKind).toBe("auth");
    const detail = await ctx.api.get(`/api/attempts/${attempt.id}`);
    expect(detail.errorText).toMatch(/^token request failed: HTTP 401 invalid_client/);
    expect(rx.requests).toHaveLength(0);
  });
});

describe("the client secret and the tokens stay secret", () => {
  it("are in no DTO, audit entry, request log entry or process log; the log shows Bearer ****", async () => {
    const { rx } = await guardedReceiver();
    const client = oauth.clients.basic;
    const dest = await ctx.destination({ urls: [`${rx.url}/secret`], auth: authFor(client) });
    expect(dest.auth).toEqual({
      ...authFor(client),
      clientSecret: { set: true, last4: client.clientSecret.slice(-4) },
      previousClientSecret: null,
    });
    // A PATCH without the secret keeps it; a new scope is audited, the secret only as "changed".
    const patched = await ctx.api.patch(`/api/destinations/${dest.id}`, {
      auth: { ...authFor(client), clientSecret: undefined, scope: null },
    });
    expect(patched.auth).toMatchObject({ scope: null, clientSecret: { set: true } });
    for (const id of await ctx.send(dest.id, track("secret", 2))) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    const attempts = await attemptsOf(dest.id);
    const detail = await ctx.api.get(`/api/attempts/${attempts[0].id}`);
    expect(detail.requestHeaders.authorization).toBe("Bearer ****");
    await ctx.api.patch(`/api/destinations/${dest.id}`, { auth: { ...authFor(client), clientSecret: "rotated-secret-abcdef" } });
    // Reveal gives the stored secret to an admin, and the audit log says who saw which, not what.
    expect(await ctx.api.post(`/api/destinations/${dest.id}/reveal`, { secret: "authClientSecret" })).toEqual({
      value: "rotated-secret-abcdef",
    });
    const audit = (await ctx.api.get(`/api/audit?resourceId=${dest.id}`)).events;
    expect(audit.find((e: { action: string }) => e.action === "destination.reveal_secret")?.changes).toEqual({
      revealed: { before: null, after: "authClientSecret" },
    });
    const updates = audit.filter((e: { action: string }) => e.action === "destination.update").map((e: { changes: unknown }) => e.changes);
    expect(updates).toContainEqual(expect.objectContaining({ authClientSecret: { before: "changed", after: "changed" } }));
    const seen = JSON.stringify([
      dest,
      patched,
      await ctx.api.get(`/api/destinations/${dest.id}`),
      await ctx.api.get("/api/destinations"),
      audit,
      attempts,
      detail,
      ctx.stack.app.output(),
      ...ctx.stack.workers.map((w) => w.output()),
    ]);
    expect(oauth.issued.length).toBeGreaterThan(0);
    for (const secret of [client.clientSecret, oauth.clients.post.clientSecret, "rotated-secret-abcdef", ...oauth.issued])
      expect(seen).not.toContain(secret);
  });
});

describe("a capture URL (docs/endpoint-auth.md#request-log)", () => {
  it("gets Bearer **** from an OAuth2 destination, never its token, though the token request ran; another sender's header stays as sent", async () => {
    const bin = await ctx.api.post("/api/capture-bins", { name: "oauth" });
    const dest = await ctx.destination({ urls: [`${bin.url}/hook`], auth: authFor(oauth.clients.basic) });
    const issuedBefore = oauth.issued.length;
    for (const id of await ctx.send(dest.id, track("capture", 2))) expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(oauth.issued.length, "a token of its own (cached per destination)").toBeGreaterThan(issuedBefore);
    await fetch(bin.url, { method: "POST", headers: { authorization: "Bearer someone-elses-token" }, body: "{}" });
    const listed = (await ctx.api.get(`/api/capture-bins/${bin.id}/requests`)).requests as { id: string }[];
    expect(listed).toHaveLength(3);
    const shown = await Promise.all(
      listed.map(async (r) => (await ctx.api.get(`/api/capture-bins/${bin.id}/requests/${r.id}`)).headers.authorization),
    );
    expect(shown.sort()).toEqual(["Bearer ****", "Bearer ****", "Bearer someone-elses-token"]);
    const stored = await withClient(ctx.stack.databaseUrl, (c) =>
      c.query("SELECT headers::text FROM captured_requests WHERE bin_id = $1", [bin.id]).then((r) => JSON.stringify(r.rows)),
    );
    for (const token of oauth.issued) expect(stored).not.toContain(token);
  });
});

describe("mutual TLS (docs/endpoint-auth.md#mutual-tls)", () => {
  // The receiver's certificate comes from a private CA; it takes only clients with clientCa's certificates.
  const serverCa = makeCa("Receiver Private CA");
  const clientCa = makeCa("Client CA");
  const otherCa = makeCa("Another CA");
  const client = issue(clientCa, "eventrail-client", "client");
  const stranger = issue(otherCa, "stranger", "client");
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startMutualTlsReceiver({ server: issue(serverCa, "127.0.0.1", "server"), clientCa: clientCa.cert });
    receivers.push(rx);
  });

  const tls = (c: { key: string; cert: string }, ca: string | null = serverCa.cert) => ({ clientCert: c.cert, clientKey: c.key, ca });

  async function firstAttempt(destinationId: string) {
    const [attempt] = await waitFor(async () => {
      const a = await attemptsOf(destinationId);
      return a.length > 0 && a;
    });
    return { ...attempt, detail: await ctx.api.get(`/api/attempts/${attempt.id}`) };
  }

  it("delivers with the right client certificate, trusting the destination's private CA; shows subject and expiry, never the key", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/mtls`], tls: tls(client) });
    expect(dest.tls).toMatchObject({
      subject: "CN=eventrail-client",
      clientKey: { set: true, last4: null },
      caSubject: "CN=Receiver Private CA",
    });
    expect(Date.parse((dest.tls as { expiresAt: string }).expiresAt)).toBeGreaterThan(Date.now());
    const [id] = await ctx.send(dest.id, track("mtls", 1));
    expect((await ctx.settled(id)).deliveries[0].state).toBe("delivered");
    expect(rx.requests.filter((r) => r.path === "/mtls")).toHaveLength(1);
    const patched = await ctx.api.patch(`/api/destinations/${dest.id}`, { tls: { clientCert: client.cert, ca: serverCa.cert } });
    expect(patched.tls.clientKey).toEqual({ set: true, last4: null });
    const audit = (await ctx.api.get(`/api/audit?resourceId=${dest.id}`)).events;
    const seen = JSON.stringify([
      dest,
      patched,
      await ctx.api.get("/api/destinations"),
      audit,
      ctx.stack.app.output(),
      ...ctx.stack.workers.map((w) => w.output()),
    ]);
    expect(seen).not.toContain(client.key.split("\n")[1]);
  });

  it("fails with a clear reason and delivers nothing with another CA's certificate", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/stranger`], tls: tls(stranger) });
    await ctx.send(dest.id, track("stranger", 1));
    const attempt = await firstAttempt(dest.id);
    // TLS 1.3: the receiver refuses the certificate after the handshake, by closing the connection.
    expect(attempt.errorKind).toBe("connection");
    expect(attempt.detail.errorText).toMatch(/refuses the client certificate/);
    expect(rx.requests.filter((r) => r.path === "/stranger")).toHaveLength(0);
  });

  it("trusts a private CA for its own destination only: without a client certificate and without the CA, the seed's rule refuses", async () => {
    const plain = await ctx.destination({ urls: [`${rx.url}/plain`] });
    await ctx.send(plain.id, track("plain", 1));
    const attempt = await firstAttempt(plain.id);
    expect(attempt.errorKind).toBe("tls");
    // The same client certificate without the CA: the receiver's certificate does not verify.
    const noCa = await ctx.destination({ urls: [`${rx.url}/no-ca`], tls: tls(client, null) });
    await ctx.send(noCa.id, track("no-ca", 1));
    expect((await firstAttempt(noCa.id)).errorKind).toBe("tls");
    expect(rx.requests.filter((r) => r.path === "/plain" || r.path === "/no-ca")).toHaveLength(0);
  });

  it("rotates the certificate with grace: while the receiver refuses the new one, the retry presents the previous; at once, the new one alone", async () => {
    const dest = await ctx.destination({ urls: [`${rx.url}/rotate-tls`], tls: tls(client) });
    const rotate = (body: object) => ctx.api.request("POST", `/api/destinations/${dest.id}/rotate-secret`, body);
    // The user's CA issues certificates: a rotation names both, and the key must be the certificate's.
    const missing = await rotate({ secret: "tlsClientKey", graceMinutes: 60 });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.error.fields).sort()).toEqual(["clientCert", "value"]);
    const mismatched = await rotate({ secret: "tlsClientKey", graceMinutes: 60, clientCert: stranger.cert, value: client.key });
    expect(mismatched.status).toBe(422);
    expect(Object.keys(mismatched.body.error.fields)).toEqual(["value"]);

    // The receiver does not take the new certificate yet (another CA's): with grace, the retry presents the previous one.
    const rotated = await rotate({ secret: "tlsClientKey", graceMinutes: 60, clientCert: stranger.cert, value: stranger.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.destination.tls).toMatchObject({
      subject: "CN=stranger",
      previous: { subject: "CN=eventrail-client", expiresAt: expect.any(String) },
    });
    const graceEnd = Date.parse(rotated.body.destination.tls.previous.expiresAt) - Date.now();
    expect(graceEnd).toBeGreaterThan(59 * 60_000);
    expect(graceEnd).toBeLessThanOrEqual(60 * 60_000);
    const [first] = await ctx.send(dest.id, track("rotate-tls", 1));
    expect((await ctx.settled(first)).deliveries[0].state).toBe("delivered");
    const chain = (await attemptsOf(dest.id)).reverse();
    expect(chain.map((a) => [a.outcome, a.errorKind])).toEqual([
      ["retry", "connection"],
      ["success", null],
    ]);
    expect((await ctx.api.get(`/api/attempts/${chain[0].id}`)).errorText).toMatch(
      /refuses the client certificate.*; the previous client certificate \(CN=eventrail-client, in its rotation's grace until .*\) is presented next$/,
    );
    // This worker remembers: the next message presents the previous certificate first, in one attempt.
    const [second] = await ctx.send(dest.id, track("rotate-tls", 1));
    expect((await ctx.settled(second)).deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 1 });
    expect(rx.requests.filter((r) => r.path === "/rotate-tls")).toHaveLength(2);
    // An edit that keeps the certificate and key keeps the grace.
    const patched = await ctx.api.patch(`/api/destinations/${dest.id}`, { tls: { clientCert: stranger.cert, ca: serverCa.cert } });
    expect(patched.tls.previous).toEqual(rotated.body.destination.tls.previous);

    // Rotated at once to a certificate of the receiver's CA: presented at once, delivered in one attempt.
    const fresh = issue(clientCa, "eventrail-client-2", "client");
    const now = await rotate({ secret: "tlsClientKey", graceMinutes: 0, clientCert: fresh.cert, value: fresh.key });
    expect(now.body.destination.tls).toMatchObject({ subject: "CN=eventrail-client-2", previous: null });
    const [third] = await ctx.send(dest.id, track("rotate-tls", 1));
    expect((await ctx.settled(third)).deliveries[0]).toMatchObject({ state: "delivered", attemptCount: 1 });
    expect(rx.requests.filter((r) => r.path === "/rotate-tls")).toHaveLength(3);
    const audit = (await ctx.api.get(`/api/audit?resourceId=${dest.id}`)).events as { action: string; changes: unknown }[];
    expect(audit.filter((e) => e.action === "destination.rotate_secret").map((e) => e.changes)).toEqual([
      {
        tlsClientKey: { before: "changed", after: "changed" },
        clientCert: { before: "CN=stranger", after: "CN=eventrail-client-2" },
        graceMinutes: { before: null, after: 0 },
      },
      {
        tlsClientKey: { before: "changed", after: "changed" },
        clientCert: { before: "CN=eventrail-client", after: "CN=stranger" },
        graceMinutes: { before: null, after: 60 },
      },
    ]);
    const shown = JSON.stringify([rotated.body, patched, now.body, audit, await ctx.api.get(`/api/destinations/${dest.id}`)]);
    for (const key of [client.key, stranger.key, fresh.key]) expect(shown).not.toContain(key.split("\n")[1]);
  });

  it("refuses a key that is not the certificate's, or PEM that does not parse, at its field", async () => {
    const wrongKey = await ctx.api.request("POST", "/api/destinations", {
      name: "Hooks",
      urls: [`${rx.url}/bad`],
      tls: { clientCert: client.cert, clientKey: stranger.key },
    });
    expect(wrongKey.status).toBe(422);
    expect(JSON.stringify(wrongKey.body)).toContain("tls.clientKey");
    const noKey = await ctx.api.request("POST", "/api/destinations", {
      name: "Hooks",
      urls: [`${rx.url}/bad`],
      tls: { clientCert: client.cert },
    });
    expect(noKey.status).toBe(422);
    expect(JSON.stringify(noKey.body)).toContain("tls.clientKey");
  });
});
