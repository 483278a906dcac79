import { expect, test } from "./fixtures";
import { discoverRoutes, routeName, walkPage } from "./walk";

/**
 * Right after the fresh install (one source, nothing else): every dashboard page without an id, in
 * its empty state, at desktop and phone width — axe, overflow, the phone menu, a screenshot each.
 */
test("every dashboard page in its empty state is accessible and fits a phone", async ({ page }) => {
  test.setTimeout(180_000);
  const routes = discoverRoutes("(dashboard)").filter((r) => !r.includes("["));
  expect(routes).toEqual(expect.arrayContaining(["/destinations", "/log", "/overview", "/settings", "/sources"]));
  const titles = new Set<string>();
  for (const route of routes) {
    await walkPage(page, route, `empty-${routeName(route)}`);
    titles.add(await page.title());
  }
  // Each page names itself: no two share a <title>.
  expect(titles.size).toBe(routes.length);
});
