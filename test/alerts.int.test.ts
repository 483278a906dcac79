// Endpoint alerts end to end (docs/alerts.md): real deliveries to a failing receiver on 127.0.0.1 fill
// the attempt log; the evaluation, run with an injected clock (16 minutes, 5 days later), opens,
// resolves and disables; notices go over real HTTP (Slack-compatible JSON) and real SMTP.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateEndpointAlerts } from "../lib/alerts/evaluate";
import { sendNotices } from "../lib/alerts/notify";
import { startDeliveryContext, type DeliveryContext } from "./harness/delivery/context";
import { withClient } from "./harness/delivery/direct";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { startSmtpServer, type SmtpHarness } from "./harness/smtp";
import { issue, makeCa } from "./harness/test-ca";
import { waitFor } from "./harness/stack";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let ctx: DeliveryContext;
let smtp: SmtpHarness;
let hooks: Receiver;
const receivers: Receiver[] = [];
const adminEmail = `admin-${crypto.randomUUID().slice(0, 8)}@example.com`;
const viewerEmail = `viewer-${crypto.randomUUID().slice(0, 8)}@example.com`;

async function receiver(status: () => number): Promise<Receiver> {
  const r = await startReceiver(() => ({ status: status(), body: "x" }));
  receivers.push(r);
  return r;
}

beforeAll(async () => {
  // The notification URL is a receiver on 127.0.0.1, which the SSRF guard allows only here (as for webhooks in tests).
  process.env.EVENTRAIL_ALLOW_PRIVATE_NETWORKS = "1";
  ctx = await startDeliveryContext({ EVENTRAIL_RETRY_MAX_MS: "2000" });
  smtp = await startSmtpServer();
  hooks = await receiver(() => 200);
  await withClient(ctx.stack.databaseUrl, async (c) => {
    for (const [email, role] of [
      [adminEmail, "admin"],
      [viewerEmail, "viewer"],
    ]) {
      const user = await c.query(`INSERT INTO users (id, email, password_hash) VALUES (gen_random_uuid(), $1, 'x') RETURNING id`, [email]);
      await c.query(`INSERT INTO memberships (user_id, workspace_id, role) VALUES ($1, $2, $3)`, [
        user.rows[0].id,
        ctx.api.workspaceId,
        role,
      ]);
    }
  });
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await smtp?.close();
  await ctx?.close();
});

const evaluate = (at: number) => evaluateEndpointAlerts({ now: new Date(at), workspaceId: ctx.api.workspaceId, smtpUrl: smtp.url });
const notices = () => hooks.requests.map((r) => JSON.parse(r.body).text as string);
const attemptsTo = async (destinationId: string, outcome?: string) =>
  (await ctx.api.get(`/api/attempts?destinationId=${destinationId}${outcome ? `&outcome=${outcome}` : ""}`)).attempts as { url: string }[];

describe("endpoint alerts", () => {
  it("refuses bad settings with field errors and stores nothing; keeps the notification URL write-only", async () => {
    const before = await ctx.api.get("/api/alerts/settings");
    expect(before).toMatchObject({
      failingMinutes: 15,
      successRatePercent: 50,
      disableAfterDays: 5,
      emailAdmins: true,
      notifyUrlSet: false,
    });
    const bad = await ctx.api.request("PUT", "/api/alerts/settings", {
      failingMinutes: 0,
      notifyUrl: "ftp://example.com/x",
      disableAfterDays: 3,
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields).sort()).toEqual(["failingMinutes", "notifyUrl"]);
    expect(await ctx.api.get("/api/alerts/settings")).toEqual(before);

    const saved = await ctx.api.request("PUT", "/api/alerts/settings", {
      notifyUrl: `${hooks.url}/services/T0/B0/secret-token`,
      // The rate alert is proven in lib/alerts/judge.test.ts; here it would fire on the fast retries at the real time too.
      successRatePercent: 0,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ notifyUrlSet: true, notifyUrlHost: new URL(hooks.url).host, successRatePercent: 0 });
    expect(JSON.stringify(saved.body)).not.toContain("secret-token");

    // The change is in the audit log; the refused one is not; the URL only as "changed".
    const audit = await ctx.api.get("/api/audit?action=alert_settings.update");
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0].changes).toEqual({
      successRatePercent: { before: 50, after: 0 },
      notifyUrl: { before: "changed", after: "changed" },
    });
    expect(JSON.stringify(audit)).not.toContain("secret-token");
  });

  it("tells admins (email and Slack-compatible POST) once a URL has failed for N minutes, not before, not twice, and again when it recovers", async () => {
    let status = 500;
    const flaky = await receiver(() => status);
    const dest = await ctx.destination({ urls: [`${flaky.url}/hook`], retryWindowMinutes: 5 });
    await ctx.send(dest.id, [{ type: "track", userId: "u1", event: "Order Completed" }]);
    await waitFor(async () => (await attemptsTo(dest.id)).length >= 2, { what: "failed attempts" });
    const t0 = Date.now();

    expect((await evaluate(t0 + MINUTE)).events).toEqual([]);
    expect((await ctx.api.get("/api/alerts")).open).toEqual([]);

    const opened = await evaluate(t0 + 16 * MINUTE);
    expect(opened.events.map((e) => [e.kind, e.url])).toEqual([["opened", `${flaky.url}/hook`]]);
    const { open } = await ctx.api.get("/api/alerts");
    expect(open).toEqual([
      expect.objectContaining({
        destinationId: dest.id,
        url: `${flaky.url}/hook`,
        reason: "failing",
        disabledAt: null,
        lastError: "HTTP 500",
      }),
    ]);
    expect(notices()).toEqual([
      expect.stringMatching(/Hooks.*\/hook has been failing with no success for 1[67] minutes \(last error: HTTP 500\)/),
    ]);
    expect(hooks.requests[0].path).toBe("/services/T0/B0/secret-token");
    expect(smtp.messages.map((m) => [m.to, m.subject])).toEqual([[[adminEmail], "[Eventrail] Endpoint failing: Hooks"]]);

    expect((await evaluate(t0 + 17 * MINUTE)).events).toEqual([]);
    expect(hooks.requests).toHaveLength(1);

    status = 200;
    await ctx.send(dest.id, [{ type: "track", userId: "u1", event: "Order Completed" }]);
    await waitFor(async () => (await attemptsTo(dest.id, "success")).length >= 1, { what: "a successful attempt" });
    const recovered = await evaluate(t0 + 18 * MINUTE);
    expect(recovered.events.map((e) => e.kind)).toEqual(["recovered"]);
    const after = await ctx.api.get("/api/alerts");
    expect(after.open).toEqual([]);
    expect(after.recent[0]).toMatchObject({ destinationId: dest.id, resolution: "recovered" });
    expect(notices()[1]).toMatch(/has recovered/);
    expect(smtp.messages.map((m) => m.subject)).toEqual(["[Eventrail] Endpoint failing: Hooks", "[Eventrail] Endpoint recovered: Hooks"]);
  });

  it("disables a URL failing for D days: it gets nothing more, the other URL still does, until a person re-enables it", async () => {
    const bad = await receiver(() => 503);
    const good = await receiver(() => 200);
    const dest = await ctx.destination({ name: "Pair", urls: [`${bad.url}/in`, `${good.url}/in`], mode: "every", retryWindowMinutes: 5 });
    const [first] = await ctx.send(dest.id, [{ type: "track", userId: "u2", event: "Signed Up" }]);
    // The evaluation reads the attempt log: wait for both URLs' attempts there, not only at the receivers
    // (a receiver has the request before the worker has recorded its answer).
    await waitFor(
      async () =>
        new Set((await attemptsTo(dest.id)).map((a) => a.url)).size === 2 && bad.requests.length >= 1 && good.requests.length >= 1,
      { what: "both URLs tried and logged" },
    );

    const t0 = Date.now();
    const disabled = await evaluate(t0 + 5 * DAY + MINUTE);
    expect(disabled.events.map((e) => [e.kind, e.url])).toEqual([["disabled", `${bad.url}/in`]]);
    expect(notices().at(-1)).toMatch(/Pair.*\/in has been failing with no success for 5 days.*disabled/);
    expect(smtp.messages.at(-1)?.subject).toBe("[Eventrail] Endpoint disabled: Pair");
    const { open } = await ctx.api.get("/api/alerts");
    expect(open).toEqual([expect.objectContaining({ destinationId: dest.id, url: `${bad.url}/in`, disabledAt: expect.any(String) })]);

    const health = await ctx.api.get(`/api/destinations/${dest.id}/health`);
    expect(health.urls.map((u: { url: string; disabled: boolean }) => [u.url, u.disabled])).toEqual([
      [`${bad.url}/in`, true],
      [`${good.url}/in`, false],
    ]);

    // The first message waited only on the disabled URL: it ends, and is not re-sent to the good one.
    const settled = await ctx.settled(first);
    expect(settled.deliveries[0]).toMatchObject({ state: "failed" });
    const badSeen = bad.requests.length;
    const goodSeen = good.requests.length;
    const [second] = await ctx.send(dest.id, [{ type: "track", userId: "u2", event: "Upgraded" }]);
    expect((await ctx.settled(second)).deliveries[0]).toMatchObject({ state: "delivered" });
    expect(bad.requests.length).toBe(badSeen);
    expect(good.requests.length).toBe(goodSeen + 1);

    const enabled = await ctx.api.post(`/api/destinations/${dest.id}/enable-url`, { url: `${bad.url}/in` });
    expect(enabled).toEqual({ destinationId: dest.id, url: `${bad.url}/in`, disabledUrls: [] });
    expect((await ctx.api.request("POST", `/api/destinations/${dest.id}/enable-url`, { url: `${bad.url}/in` })).status).toBe(409);
    const afterEnable = await ctx.api.get("/api/alerts");
    expect(afterEnable.open).toEqual([]);
    expect(afterEnable.recent[0]).toMatchObject({ destinationId: dest.id, resolution: "reenabled" });
    // Judged afresh from the re-enable: the failures before it do not disable it again.
    expect((await evaluate(t0 + 5 * DAY + 2 * MINUTE)).events).toEqual([]);
  });
  it("disables a URL whose alert opened in an earlier evaluation once it crosses D days, and deliveries to it stop", async () => {
    const bad = await receiver(() => 502);
    const good = await receiver(() => 200);
    const dest = await ctx.destination({ name: "Later", urls: [`${bad.url}/in`, `${good.url}/in`], mode: "every", retryWindowMinutes: 5 });
    const badUrl = `${bad.url}/in`;
    const [first] = await ctx.send(dest.id, [{ type: "track", userId: "u3", event: "Signed Up" }]);
    await waitFor(
      async () =>
        new Set((await attemptsTo(dest.id)).map((a) => a.url)).size === 2 && bad.requests.length >= 1 && good.requests.length >= 1,
      { what: "both URLs tried and logged" },
    );
    const t0 = Date.now();

    // The alert opens first, with the URL still enabled and still being retried.
    const opened = await evaluate(t0 + 16 * MINUTE);
    expect(opened.events.map((e) => [e.kind, e.url])).toEqual([["opened", badUrl]]);
    expect((await ctx.api.get("/api/alerts")).open).toEqual([expect.objectContaining({ url: badUrl, disabledAt: null })]);
    expect((await evaluate(t0 + DAY)).events).toEqual([]);
    const triedBefore = bad.requests.length;
    await waitFor(async () => bad.requests.length > triedBefore, { what: "a retry to the URL while its alert is open" });

    // A later evaluation, past the 5 days, disables the URL of the alert already open.
    const later = await evaluate(t0 + 5 * DAY + MINUTE);
    expect(later.events.map((e) => [e.kind, e.url])).toEqual([["disabled", badUrl]]);
    expect((await ctx.api.get("/api/alerts")).open).toEqual([
      expect.objectContaining({ destinationId: dest.id, url: badUrl, disabledAt: expect.any(String) }),
    ]);
    const health = await ctx.api.get(`/api/destinations/${dest.id}/health`);
    expect(health.urls.map((u: { url: string; disabled: boolean }) => [u.url, u.disabled])).toEqual([
      [badUrl, true],
      [`${good.url}/in`, false],
    ]);

    // Deliveries to it stop: the retries of the first message end, and a new message goes to the other URL only.
    expect((await ctx.settled(first)).deliveries[0]).toMatchObject({ state: "failed" });
    const badSeen = bad.requests.length;
    const goodSeen = good.requests.length;
    const [second] = await ctx.send(dest.id, [{ type: "track", userId: "u3", event: "Upgraded" }]);
    expect((await ctx.settled(second)).deliveries[0]).toMatchObject({ state: "delivered" });
    expect(good.requests.length).toBe(goodSeen + 1);
    expect(bad.requests.length).toBe(badSeen);
  });
  it("escapes <, > and & in the Slack-compatible notice: no channel ping, no mention, no disguised link; the email keeps the text", async () => {
    await ctx.api.request("PUT", "/api/alerts/settings", { notifyUrl: `${hooks.url}/services/T0/B0/secret-token` });
    const seen = hooks.requests.length;
    const mails = smtp.messages.length;
    const name = "<!channel> Orders <https://evil.example/login|Re-enable here> & co";
    await sendNotices(
      [
        {
          kind: "opened",
          workspaceId: ctx.api.workspaceId!,
          destinationId: crypto.randomUUID(),
          destinationName: name,
          url: "https://hooks.example/in?a=1&b=2",
          reason: "failing",
          failingSince: new Date(Date.now() - 20 * MINUTE),
          successRate: null,
          lastError: "HTTP 500: <@U024BE7LH>",
          now: new Date(),
        },
      ],
      { smtpUrl: smtp.url, from: "alerts@example.com", dashboardOrigin: null },
    );
    await waitFor(async () => hooks.requests.length > seen && smtp.messages.length > mails, { what: "the notice and the email" });
    const text = JSON.parse(hooks.requests[seen].body).text as string;
    expect(text).not.toMatch(/[<>]/);
    expect(text).toContain('"&lt;!channel&gt; Orders &lt;https://evil.example/login|Re-enable here&gt; &amp; co"');
    expect(text).toContain("https://hooks.example/in?a=1&amp;b=2");
    expect(text).toContain("(last error: HTTP 500: &lt;@U024BE7LH&gt;)");
    // Email is plain text, not parsed for mentions: it tells the name as it is.
    expect(smtp.messages.at(-1)?.raw).toContain("!channel");
    expect(smtp.messages.at(-1)?.raw).not.toContain("&lt;");
  });

  it("raises a destination's alert once its client certificate ends within 14 days, tells once, and resolves when a later one replaces it", async () => {
    const ca = makeCa("Alert test CA");
    const ending = issue(ca, "ending-client", "client", 10);
    const renewed = issue(ca, "renewed-client", "client", 90);
    const rx = await receiver(() => 200);
    const dest = await ctx.destination({
      name: "Certified",
      urls: [`${rx.url}/cert`],
      tls: { clientCert: ending.cert, clientKey: ending.key },
    });
    const at = (ms: number) =>
      evaluateEndpointAlerts({ now: new Date(ms), workspaceId: ctx.api.workspaceId, destinationIds: [dest.id], smtpUrl: smtp.url });
    const sentBefore = hooks.requests.length;
    const mailsBefore = smtp.messages.length;
    const certificateAlerts = async () =>
      ((await ctx.api.get("/api/alerts")).open as { destinationId: string; reason: string }[]).filter((a) => a.destinationId === dest.id);

    // 30 days earlier it ended in 40: nothing.
    expect((await at(Date.now() - 30 * DAY)).events).toEqual([]);
    const opened = await at(Date.now());
    expect(opened.events.map((e) => [e.kind, e.reason])).toEqual([["opened", "certificate"]]);
    const [alert] = await certificateAlerts();
    expect(alert).toMatchObject({
      reason: "certificate",
      url: `${rx.url}/cert`,
      disabledAt: null,
      certificate: { subject: "CN=ending-client" },
    });
    const expiresAt = Date.parse((alert as unknown as { certificate: { expiresAt: string } }).certificate.expiresAt);
    expect(expiresAt - Date.now()).toBeGreaterThan(9 * DAY);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(10 * DAY);
    expect(notices().slice(sentBefore)).toEqual([
      expect.stringMatching(
        /Certified" at .*\/cert sends the client certificate CN=ending-client, which expires on \d{4}-\d\d-\d\d \(in (9|10) days\)/,
      ),
    ]);
    expect(smtp.messages.slice(mailsBefore).map((m) => m.subject)).toEqual(["[Eventrail] Client certificate expiring: Certified"]);
    // Told once; a certificate alert is the destination's, never a reason to disable its URL.
    expect((await at(Date.now() + 6 * DAY)).events).toEqual([]);
    await withClient(ctx.stack.databaseUrl, async (c) => {
      const { rows } = await c.query("SELECT disabled_urls FROM destinations WHERE id = $1", [dest.id]);
      expect(rows[0].disabled_urls).toEqual([]);
    });
    expect(await certificateAlerts()).toHaveLength(1);

    await ctx.api.patch(`/api/destinations/${dest.id}`, { tls: { clientCert: renewed.cert, clientKey: renewed.key } });
    const recovered = await at(Date.now() + MINUTE);
    expect(recovered.events.map((e) => [e.kind, e.reason])).toEqual([["recovered", "certificate"]]);
    expect(await certificateAlerts()).toEqual([]);
    expect(notices().at(-1)).toMatch(/Certified" has a new client certificate: CN=renewed-client, which expires on .* \(in (89|90) days\)/);

    // Removing the certificate resolves an open one silently.
    await ctx.api.patch(`/api/destinations/${dest.id}`, { tls: { clientCert: ending.cert, clientKey: ending.key } });
    expect((await at(Date.now() + 2 * MINUTE)).events.map((e) => e.kind)).toEqual(["opened"]);
    await ctx.api.patch(`/api/destinations/${dest.id}`, { tls: null });
    const sent = hooks.requests.length;
    expect((await at(Date.now() + 3 * MINUTE)).events).toEqual([]);
    expect(await certificateAlerts()).toEqual([]);
    const recent = (await ctx.api.get("/api/alerts")).recent as { destinationId: string; resolution: string }[];
    expect(recent.filter((a) => a.destinationId === dest.id).map((a) => a.resolution)).toEqual(["removed", "recovered"]);
    expect(hooks.requests).toHaveLength(sent);
  });
});
