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

export const test = base.extend<{ cspViolations: string[] }>({
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
