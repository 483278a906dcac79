import { expect, test, watchCsp } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { DESKTOP, PHONE, expectAccessible } from "./checks";
import { shot } from "./shot";
import { discoverRoutes, fillRoute, routeName, walkPage, walkPages } from "./walk";

/** Text that reverses what follows it unless the page isolates it (U+202E RIGHT-TO-LEFT OVERRIDE). */
const RLO = "\u202e";

/**
 * After the stories: every page of app/(dashboard) and app/(auth), discovered from the folders, with
 * data in it (routes with [id] open a resource seeded here), at desktop and phone width and in dark
 * mode — axe finds no serious or critical violation, nothing overflows sideways, the phone menu works,
 * and each state is photographed into e2e/artifacts.
 */
test("every page, filled, is accessible, fits a phone, reads in dark mode", async ({ page, browser, cspViolations }) => {
  test.setTimeout(480_000);
  const tag = Date.now().toString(36);
  const source = await createSource(page, `Walk shop ${tag}`);
  const bin = await createCaptureBin(page, { name: `Walk receiver ${tag}` });
  const destination = await api(page, "POST", "/api/destinations", {
    name: `Walk hook ${tag}`,
    urls: [bin.url, `${bin.url}/a/rather/long/path/that/must/wrap/on/a/phone?with=query&and=more`],
    headers: [{ name: "X-Team", value: "walkers" }],
    sourceIds: [source.id],
  });
  // A tracking plan on the source: the debugger shows flagged calls with their violations.
  const trackingPlan = await api(page, "POST", "/api/tracking-plans", {
    name: `Walk plan ${tag}`,
    sourceIds: [source.id],
    unplanned: "flag",
    rules: [
      { type: "track", event: "Order Completed", schema: { type: "object", properties: { total: { type: "string" } } } },
      { type: "identify", schema: { required: ["email", "name"] } },
    ],
  });
  await sendBatch(page, source.writeKey, [
    { type: "track", userId: `walker-${tag}`, event: "Order Completed", properties: { total: 42 } },
    { type: "track", userId: `walker-${tag}`, event: `Signed Up ${RLO}evil`, properties: { note: `${RLO}reversed` } },
    { type: "identify", userId: `walker-${tag}`, traits: { plan: "pro", email: "walker@example.com" } },
    { type: "page", userId: `walker-${tag}`, name: "Pricing" },
    { type: "track", userId: `walker-${tag}` }, // rejected: no event
  ]);
  await expect
    .poll(async () => (await api(page, "GET", `/api/attempts?destinationId=${destination.id}`)).attempts.length, { timeout: 60_000 })
    .toBeGreaterThanOrEqual(8);
  const { attempts } = await api(page, "GET", `/api/attempts?destinationId=${destination.id}&type=track`);
  const audience = await api(page, "POST", "/api/audiences", {
    name: `Walk pros ${tag}`,
    sourceIds: [source.id],
    destinationIds: [destination.id],
    condition: {
      any: [
        { trait: "plan", op: "equals", value: "pro" },
        { event: "Order Completed", atLeast: 1, withinDays: 30 },
      ],
    },
  });
  const deletion = await api(page, "POST", "/api/deletions", { userIds: [`gone-${tag}`, `never-seen-${tag}`] });
  await expect.poll(async () => (await api(page, "GET", `/api/deletions/${deletion.id}`)).status, { timeout: 60_000 }).toBe("completed");

  const ids = {
    audiences: audience.id,
    capture: bin.id,
    deletions: deletion.id,
    destinations: destination.id,
    sources: source.id,
    "tracking-plans": trackingPlan.id,
  };
  // Dark mode on the pages with the most kinds of parts (charts, tables, code, badges, forms); every page
  // shares their components, and checking all of them twice more would double the walk's time.
  const darkToo = new Set([
    "/overview",
    "/log",
    "/sources/[id]",
    "/destinations/[id]",
    "/capture/[id]",
    "/audiences/[id]",
    "/deletions/[id]",
  ]);
  // Two tabs of the owner's session walk the pages at once (they only read).
  const second = await page.context().newPage();
  watchCsp(second, cspViolations);
  await walkPages(
    [page, second],
    [
      ...discoverRoutes("(dashboard)").map((route) => ({
        url: fillRoute(route, ids),
        name: routeName(route),
        opts: { dark: darkToo.has(route) },
      })),
      // The request log with an attempt open: its panel and the attempt chain (on a phone the panel covers the menu).
      {
        url: `/log?view=attempts&destinationId=${destination.id}&attempt=${attempts[0].id}`,
        name: "log-attempt",
        opts: { dark: true, nav: false },
      },
    ],
  );
  await second.close();

  await page.setViewportSize(DESKTOP);

  // User text is isolated: the override in the event name cannot reverse the page's own text after it.
  await page.goto(`/log?view=attempts&destinationId=${destination.id}`);
  // The destination's two URLs stay apart in the log: a long one is cut in the middle, its differing end kept.
  const cut = page.getByRole("table", { name: "Attempts" }).locator('span[aria-hidden="true"]', { hasText: "…" });
  await expect(cut.filter({ hasText: /and=more$/ }).first()).toBeVisible();
  const evil = page.getByRole("table", { name: "Attempts" }).locator("bdi", { hasText: RLO });
  await expect(evil.first()).toBeVisible();
  // In the source debugger the event name and the user are isolated apart: the user reads as sent.
  await page.goto(`/sources/${source.id}`);
  const summary = page.getByRole("list", { name: "Recent calls" }).locator("span", { has: page.locator("bdi", { hasText: RLO }) });
  await expect(summary.locator("bdi").nth(1)).toHaveText(`walker-${tag}`);

  // An address the app does not know, logged in (logged out, it is the login page): the styled 404, accessible at both widths.
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    const missing = await page.goto("/no-such-page");
    expect(missing?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(page).toHaveTitle("Page not found · Eventrail");
    await expectAccessible(page, `404 (${size.width}px)`);
    await shot(page, "not-found", { nav: false });
  }
  await page.setViewportSize(DESKTOP);
  // The auth pages, logged out (setup is photographed by the fresh-install story, before an owner exists);
  // the invite page with a link of its own.
  const invite = await api(page, "POST", "/api/invitations", { role: "viewer" });
  const anonymous = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const visitor = await anonymous.newPage();
  for (const route of discoverRoutes("(auth)").filter((r) => r !== "/setup")) {
    const url = route === "/invite/[token]" ? new URL(invite.url).pathname : route;
    await walkPage(visitor, url, routeName(route), { dark: true });
  }
  await anonymous.close();
});
