import { expect, test } from "./fixtures";
import { discoverRoutes, routeName, walkPage } from "./walk";

/**
 * Right after the fresh install (one source, nothing else): every dashboard page without an id, in
 * its empty state, at desktop and phone width — axe, overflow, the phone menu, a screenshot each.
 * The pages only read, so the walk is two halves on the two e2e workers (docs/decisions/0154-ci-time.md).
 */
const routes = discoverRoutes("(dashboard)").filter((r) => !r.includes("["));
const halves = [routes.filter((_, i) => i % 2 === 0), routes.filter((_, i) => i % 2 === 1)];

test.describe.configure({ mode: "parallel" });

test("the empty walk covers the pages every install has, and each page names itself", async ({ page }) => {
  expect(routes).toEqual(expect.arrayContaining(["/destinations", "/log", "/overview", "/settings", "/sources"]));
  // Each page names itself: no two share a <title> (the server renders it; the walk checks the browser's).
  const titles = new Map<string, string>();
  for (const route of routes) {
    const res = await page.request.get(route);
    expect(res.status(), `${route} answers`).toBe(200);
    const title = /<title>([^<]*)<\/title>/.exec(await res.text())?.[1];
    expect(title, `${route} has a <title>`).toMatch(/ · Eventrail$/);
    titles.set(route, title!);
  }
  expect(new Set(titles.values()).size, JSON.stringify(Object.fromEntries(titles))).toBe(routes.length);
});

for (const [i, half] of halves.entries()) {
  test(`every dashboard page in its empty state is accessible and fits a phone (${i + 1} of 2: ${half.join(", ")})`, async ({ page }) => {
    test.setTimeout(180_000);
    for (const route of half) {
      await walkPage(page, route, `empty-${routeName(route)}`);
    }
  });
}
