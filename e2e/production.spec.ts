import { expect, test } from "./fixtures";
import { api } from "./api";
import { OWNER } from "./owner";
import { shot } from "./shot";
import { createTestDatabase } from "../test/harness/pg";
import { freePort, type Proc, SETUP_CODE, startApp, startIngest, startWorker } from "../test/harness/stack";

/**
 * "Send test" in a production-like start, as `npm start` runs it (scripts/start.ts): private networks
 * refused, the public URL set, the web app on an internal port behind the ingest server on the public
 * one. The app must recognise its own capture URL there, sign the test like a real delivery, and a
 * replay of the test must go where the test went, never to the destination's own URL
 * (docs/webhooks.md#outbound-safety, #replay). This stack is the spec's own, on a fresh database:
 * the shared e2e stack (e2e/global-setup.ts) allows private networks.
 */
const REAL_URL = "https://receiver.example.com/hook";
const SHARED = "production-shared-secret";
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

let publicUrl = "";
let drop: (() => Promise<void>) | undefined;
const procs: Proc[] = [];

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const db = await createTestDatabase();
  drop = db.drop;
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  const env = { EVENTRAIL_ALLOW_PRIVATE_NETWORKS: "0", EVENTRAIL_PUBLIC_PORT: String(port), EVENTRAIL_PUBLIC_URL: publicUrl };
  // One trusted proxy for the web app: the ingest server in front of it, as npm start sets it.
  const app = await startApp(db.url, { ...env, EVENTRAIL_TRUSTED_PROXIES: "1" });
  procs.push(app);
  const behind = { ...env, EVENTRAIL_WEB_URL: app.url };
  procs.push(await startWorker(db.url, behind));
  procs.push(await startIngest(db.url, { webUrl: app.url, port, env: behind }));
});

test.afterAll(async () => {
  for (const p of procs.reverse()) await p.stop();
  await drop?.();
});

// The browser and the API calls talk to the public port only, like a user of `npm start`.
// biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern, and it has none.
test.use({ baseURL: async ({}, use) => use(publicUrl) });

test("production-like: a test to a built-in capture URL is captured with a valid signature, and its replay goes there only", async ({
  page,
}) => {
  test.setTimeout(150_000);
  // The owner is set up with the one-time code, then logs in through the public port.
  await page.goto(`/setup?code=${SETUP_CODE}`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Create owner account" }).click();
  await expect(page.getByRole("heading", { name: "Sources", exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("heading", { name: "Sources", exact: true })).toBeVisible();

  // A destination whose real URL must never be called by the test or its replay.
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Production receiver",
    urls: [REAL_URL],
    headers: [],
    sharedSecret: SHARED,
    enabled: true,
    sourceIds: [],
  });

  // From the destination's page: a new capture URL (on the public URL, not the internal port), then send.
  await page.goto(`/destinations/${dest.id}`);
  await page.getByRole("radio", { name: "A capture URL" }).check();
  await page.getByRole("button", { name: "New capture URL" }).click();
  const target = page.getByRole("combobox", { name: "Capture URL" });
  await expect(target).toHaveValue(new RegExp(`^${escapeRegExp(publicUrl)}/c/[a-z0-9]{24}$`));
  const url = await target.inputValue();
  const binId = url.split("/c/")[1];
  await page.getByRole("button", { name: "Send test track" }).click();
  const result = page.getByRole("region", { name: "Test result" });
  await expect(result.getByText(url)).toBeVisible();
  // The status badge is the first "200": a folded response header (a Content-Length of 200) can read the same.
  await expect(result.getByText("200", { exact: true }).first()).toBeVisible();
  await expect(result.getByText(/ssrf/)).toHaveCount(0);

  // The capture page has it, and the server verifies its X-Signature with the destination's secret.
  await page.getByRole("link", { name: "Watch it arrive →" }).click();
  await expect(page.getByRole("heading", { name: "Capture URL", exact: true })).toBeVisible();
  await page.getByLabel("Check signatures against").selectOption({ label: "Production receiver" });
  const captured = page.getByRole("list", { name: "Captured requests" }).getByRole("button");
  await expect(captured).toHaveCount(1);
  await captured.first().click();
  const details = page.getByRole("region", { name: "Request details" });
  await expect(details.getByLabel("X-Signature verified")).toBeVisible();

  // Replay it from the request log (it was delivered, so "again where it was delivered" is asked for).
  await page.goto(`/log?view=attempts&destinationId=${dest.id}`);
  const rows = page.getByRole("table", { name: "Attempts" }).getByRole("row");
  await expect(rows).toHaveCount(2);
  await rows.nth(1).click();
  const panel = page.getByRole("complementary", { name: "Attempt detail" });
  await expect(panel.getByText(`POST ${url}`)).toBeVisible();
  const chain = panel.getByRole("region", { name: "Attempt chain" });
  await panel.getByRole("button", { name: "Replay message" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Also send it again where it was delivered").check();
  await dialog.getByRole("button", { name: "Replay message" }).click();
  await expect(chain.getByRole("button", { name: /^#\d+/ })).toHaveCount(2, { timeout: 30_000 });

  // Once every delivery has settled, each attempt of the message went to the capture URL: none to the real one.
  const [first] = (await api(page, "GET", `/api/attempts?destinationId=${dest.id}`)).attempts;
  const settled = async () => {
    const m = await api(page, "GET", `/api/messages/${first.messageRowId}`);
    return m.deliveries.length === 2 && m.deliveries.every((d: { state: string }) => d.state !== "pending") ? m : null;
  };
  await expect.poll(settled, { timeout: 30_000 }).not.toBeNull();
  const message = (await settled())!;
  expect(message.deliveries.map((d: { state: string }) => d.state)).toEqual(["delivered", "delivered"]);
  expect(message.attempts.map((a: { url: string }) => a.url)).toEqual([url, url]);
  const all = (await api(page, "GET", `/api/attempts?destinationId=${dest.id}`)).attempts;
  expect(all.map((a: { url: string }) => a.url)).toEqual([url, url]);

  // The replay is captured too, as signed as the test was.
  await page.goto(`/capture/${binId}`);
  await page.getByLabel("Check signatures against").selectOption({ label: "Production receiver" });
  await expect(captured).toHaveCount(2);
  await captured.first().click();
  await expect(details.getByLabel("X-Signature verified")).toBeVisible();
  await shot(page, "capture-production");

  // Private networks are refused here: saving a loopback URL is allowed, and the form says in place,
  // under that URL, which setting allows it (docs/dashboard.md#destinations).
  await page.goto(`/destinations/${dest.id}/edit`);
  await page.getByLabel("URL 1", { exact: true }).fill("http://127.0.0.1:9/hook");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("dialog", { name: "Save without a source?" }).getByRole("button", { name: "Save anyway" }).click();
  const warning = /^Saved, but: 127\.0\.0\.1 is on a private or loopback network: .*EVENTRAIL_ALLOW_PRIVATE_NETWORKS=1/;
  await expect(page.getByText(warning)).toBeVisible();
  await expect(page.getByLabel("URL 1", { exact: true })).toBeFocused();
  await expect(page.getByLabel("URL 1", { exact: true })).toHaveAccessibleDescription(warning);
  expect((await api(page, "GET", `/api/destinations/${dest.id}`)).urls).toEqual(["http://127.0.0.1:9/hook"]);
});
