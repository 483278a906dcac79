import http from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { xSignature } from "../lib/webhooks/signing";
import { startReceiver, type Receiver } from "../test/harness/delivery/receiver";
import { ADMIN_TOKEN, ApiClient, startIngest, waitFor, type Proc } from "../test/harness/stack";
import { openDb, type Db } from "../test/harness/tracking";
import { root } from "../scripts/lib/build";
import { expect, test } from "./fixtures";

/**
 * A website on another origin sends through Eventrail with Segment's own browser library, as a
 * customer would set it up (docs/tracking-api.md#segment-clients): Segment's standard snippet with only its
 * host changed, and the npm package's AnalyticsBrowser.load({ writeKey, cdnURL }). Each call must be
 * stored and delivered to a webhook receiver in the seed's shapes, signed.
 */
const SECRET = "browser-clients-secret";
// A visitor of a customer's site: nobody is logged in to Eventrail.
test.use({ storageState: { cookies: [], origins: [] } });

let ingest: Proc & { url: string };
let rx: Receiver;
let site: http.Server;
let siteUrl: string;
let api: ApiClient;
let db: Db;
const pages = new Map<string, string>();

/** Segment's standard snippet (5.2.0), with cdn.segment.com replaced by Eventrail's public URL. */
const snippet = (host: string, writeKey: string) => `
  !function(){var i="analytics",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error("Segment snippet included twice.");else{analytics.invoked=!0;analytics.methods=["trackSubmit","trackClick","trackLink","trackForm","pageview","identify","reset","group","track","ready","alias","debug","page","screen","once","off","on","addSourceMiddleware","addIntegrationMiddleware","setAnonymousId","addDestinationMiddleware","register"];analytics.factory=function(e){return function(){if(window[i].initialized)return window[i][e].apply(window[i],arguments);var n=Array.prototype.slice.call(arguments);if(["track","screen","alias","group","page","identify"].indexOf(e)>-1){var c=document.querySelector("link[rel='canonical']");n.push({__t:"bpc",c:c&&c.getAttribute("href")||void 0,p:location.pathname,u:location.href,s:location.search,t:document.title,r:document.referrer})}n.unshift(e);analytics.push(n);return analytics}};for(var n=0;n<analytics.methods.length;n++){var key=analytics.methods[n];analytics[key]=analytics.factory(key)}analytics.load=function(key,n){var t=document.createElement("script");t.type="text/javascript";t.async=!0;t.setAttribute("data-global-segment-analytics-key",i);t.src="${host}/analytics.js/v1/" + key + "/analytics.min.js";var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r);analytics._loadOptions=n};analytics._writeKey="${writeKey}";;analytics.SNIPPET_VERSION="5.2.0";
  analytics.load("${writeKey}");
  }}();`;

/**
 * The five calls a site makes. The alias comes first: once a visitor is identified, the library
 * sends every call, an alias too, with the identified user's id as its userId.
 */
const CALLS = `
  analytics.alias("user-2", "user-1");
  analytics.identify("user-1", { email: "ada@example.com", plan: "pro" });
  analytics.track("Order Completed", { orderId: "ord-42", total: 30.5 });
  analytics.page("Docs", "Pricing", { plan: "pro" });
  analytics.group("acme", { employees: 42 });`;

test.beforeAll(async () => {
  const base = process.env.E2E_BASE_URL!;
  ingest = await startIngest(process.env.E2E_DATABASE_URL!, { webUrl: base });
  const admin = new ApiClient(base, ADMIN_TOKEN);
  const ws = await admin.post<{ token: string; workspace: { id: string } }>("/api/workspaces", { name: "Browser clients" });
  api = new ApiClient(base, ws.token, ws.workspace.id);
  db = openDb(process.env.E2E_DATABASE_URL!);
  rx = await startReceiver(() => ({ status: 200 }));
  site = http.createServer((req, res) => {
    const body = pages.get((req.url ?? "/").split("?")[0]);
    res.writeHead(body === undefined ? 404 : 200, { "content-type": req.url?.endsWith(".js") ? "text/javascript" : "text/html" });
    res.end(body ?? "");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  await rx?.close();
  await db?.end();
  await ingest?.stop();
});

/** A source whose calls go to the receiver under `/hook/<name>`. */
async function sourceFor(name: string): Promise<{ id: string; writeKey: string; hook: string }> {
  const source = await api.post<{ id: string; writeKey: string }>("/api/sources", { name });
  const hook = `/hook/${name}`;
  await api.post("/api/destinations", { name, urls: [`${rx.url}${hook}`], sourceIds: [source.id], sharedSecret: SECRET });
  return { ...source, hook };
}

/** Every call stored, and each delivered once in the seed's shape with a valid X-Signature. */
async function expectDelivered(source: { id: string; hook: string }) {
  const received = await waitFor(
    async () => {
      const got = rx.requests.filter((r) => r.path === source.hook);
      return got.length >= 5 ? got : null;
    },
    { timeoutMs: 30_000, what: "five deliveries" },
  );
  for (const r of received) expect(r.headers["x-signature"]).toBe(xSignature(SECRET, r.body));
  const bodies = new Map(received.map((r) => JSON.parse(r.body)).map((b) => [b.type, b]));
  expect([...bodies.keys()].sort()).toEqual(["alias", "group", "identify", "page", "track"]);

  const shape = (type: string, keys: string[], fields: Record<string, unknown>) => {
    const b = bodies.get(type);
    expect(Object.keys(b).slice(0, keys.length), type).toEqual(keys);
    expect(b, type).toMatchObject(fields);
    // Set from the visitor's address by the edge; the library itself says who it is.
    expect(b.context, type).toMatchObject({ ip: "127.0.0.1", library: { name: "analytics.js" } });
    expect(b.anonymousId, type).toEqual(expect.any(String));
  };
  shape("identify", ["version", "type", "userId", "traits", "timestamp", "context", "messageId"], {
    userId: "user-1",
    traits: { email: "ada@example.com", plan: "pro" },
  });
  shape("track", ["version", "type", "userId", "event", "properties", "timestamp", "context", "messageId"], {
    userId: "user-1",
    event: "Order Completed",
    properties: { orderId: "ord-42", total: 30.5 },
  });
  shape("page", ["version", "type", "userId", "name", "category", "properties", "timestamp", "context", "messageId"], {
    userId: "user-1",
    name: "Pricing",
    category: "Docs",
    properties: { plan: "pro", path: expect.any(String), url: expect.stringContaining(siteUrl) },
  });
  shape("group", ["version", "type", "groupId", "userId", "traits", "timestamp", "context", "messageId"], {
    groupId: "acme",
    userId: "user-1",
    traits: { employees: 42 },
  });
  shape("alias", ["version", "type", "Previous ID", "User ID", "timestamp", "context", "messageId"], {
    "Previous ID": "user-1",
    "User ID": "user-2",
  });

  const { rows } = await db.query<{ type: string }>("SELECT type FROM messages WHERE source_id = $1 ORDER BY type", [source.id]);
  expect(rows.map((r) => r.type)).toEqual(["alias", "group", "identify", "page", "track"]);
}

test("Segment's standard snippet, with only its host changed, delivers every call", async ({ page }) => {
  const source = await sourceFor("snippet");
  pages.set("/snippet.html", `<!doctype html><title>Shop</title><script>${snippet(ingest.url, source.writeKey)}${CALLS}</script>`);
  const failed: string[] = [];
  page.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
  page.on("pageerror", (e) => failed.push(e.message));
  await page.goto(`${siteUrl}/snippet.html`);
  await expectDelivered(source);
  expect(failed).toEqual([]);
});

test("the npm package's AnalyticsBrowser.load({ writeKey, cdnURL }) delivers every call", async ({ page }) => {
  const source = await sourceFor("npm");
  const bundled = await build({
    stdin: {
      contents: `import { AnalyticsBrowser } from "@segment/analytics-next";
        window.sendAll = async (writeKey, cdnURL) => {
          const [analytics] = await AnalyticsBrowser.load({ writeKey, cdnURL });
          ${CALLS.replaceAll("analytics.", "await analytics.")}
          return "sent";
        };`,
      resolveDir: root,
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "silent",
  });
  pages.set("/npm.js", bundled.outputFiles[0].text);
  pages.set("/npm.html", `<!doctype html><title>Shop</title><script src="/npm.js"></script>`);
  await page.goto(`${siteUrl}/npm.html`);
  expect(await page.evaluate(([key, cdn]) => (window as any).sendAll(key, cdn), [source.writeKey, ingest.url])).toBe("sent");
  await expectDelivered(source);
});
