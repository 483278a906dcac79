import { test, type Page } from "@playwright/test";
import { expectCollapsedNavWorks, expectNoHorizontalOverflow, isPhone } from "./checks";
import { ARTIFACTS } from "./owner";

/**
 * A screenshot in e2e/artifacts, named after the page and the width ("log-phone.jpg"), with the
 * checks every visited page must pass: no sideways overflow and, on a phone, a working menu.
 * The dashboard scrolls inside <main>, so a full-page screenshot would stop at the viewport: grow
 * the viewport to the content first (same width), then shoot, then put it back.
 */
export async function shot(page: Page, name: string, opts: { nav?: boolean } = {}) {
  await expectNoHorizontalOverflow(page);
  const before = page.viewportSize() ?? { width: 1280, height: 800 };
  const height = await page.evaluate(() => Math.max(document.querySelector("main")?.scrollHeight ?? 0, document.body.scrollHeight));
  await page.setViewportSize({ width: before.width, height: Math.min(Math.max(height, before.height), 4000) });
  const suffix = isPhone(page) ? "phone" : "desktop";
  // JPEG: a page up to 4,000 px tall encodes several times faster than as PNG, and the walks take ~120 of them.
  await page.screenshot({ path: `${ARTIFACTS}/${name}-${suffix}.jpg`, quality: 80 });
  await page.setViewportSize(before);
  // Dashboard pages have the menu; the login and setup pages have no navigation at all.
  // (nav: false where a full-screen panel is open over the page, as the attempt detail is on a phone.)
  if (opts.nav !== false && isPhone(page) && (await page.locator("#main-nav").count()) > 0) await expectCollapsedNavWorks(page);
  test.info().annotations.push({ type: "screenshot", description: `${name}-${suffix}` });
}
