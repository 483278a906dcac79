import { test as base, expect, type Page } from "@playwright/test";

/**
 * Every story's `test`: Playwright's, plus a page that fails the story when the browser reports a
 * Content Security Policy violation (docs/dashboard.md#security-headers) — a page the CSP breaks
 * shows up as such a console error even when the story's assertions still pass.
 */
/** Adds the browser's CSP violations on `page` to `violations` (a story's other tabs pass the fixture's array). */
export function watchCsp(page: Page, violations: string[]) {
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Content-Security-Policy/i.test(msg.text())) violations.push(msg.text());
  });
}

/**
 * Makes `page.goto` and `page.reload` resolve only once React has hydrated an HTML page
 * (components/providers.tsx marks `<html data-hydrated>`): pages arrive with their data
 * (app/(dashboard)/prefetch.tsx), so a story could otherwise see its rows and act on a select or
 * field whose handlers are not attached yet, and the action would be lost. Other answers (JSON, an
 * error without the app's layout, a page that is not the app's) resolve as before.
 */
export function awaitHydration(page: Page) {
  for (const name of ["goto", "reload"] as const) {
    const original = page[name].bind(page) as (...args: unknown[]) => ReturnType<Page["goto"]>;
    Object.assign(page, {
      [name]: async (...args: unknown[]) => {
        const res = await original(...args);
        if (res && /text\/html/.test(res.headers()["content-type"] ?? "") && (await page.locator("body").count()) > 0) {
          // Only the app's own pages (Next's scripts) hydrate: a test page of other clients' libraries does not.
          await page.waitForFunction(
            () => document.documentElement.dataset.hydrated === "true" || !document.querySelector('script[src*="/_next/"]'),
          );
        }
        return res;
      },
    });
  }
}

export const test = base.extend<{ cspViolations: string[] }>({
  page: async ({ page }, use) => {
    awaitHydration(page);
    await use(page);
  },
  cspViolations: [
    async ({ page }, use) => {
      const violations: string[] = [];
      watchCsp(page, violations);
      await use(violations);
      expect(violations, "CSP violations reported by the browser").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
