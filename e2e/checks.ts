import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page } from "@playwright/test";

/** The phone viewport of the proof: 390×844 (an iPhone 12–15 in CSS pixels). */
export const PHONE = { width: 390, height: 844 } as const;
export const DESKTOP = { width: 1440, height: 900 } as const;

export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 1280) < 768;

/** The page has drawn its data: its heading is there and no "Loading…" spinner is left. */
export async function settle(page: Page) {
  await expect(page.locator("h1").first()).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: /^(Loading|Checking)/ })).toHaveCount(0);
}

/**
 * Nothing widens the page: neither the document nor the dashboard's scrolling <main> is wider than
 * the screen (long values wrap, wide tables scroll inside their own box).
 */
export async function expectNoHorizontalOverflow(page: Page) {
  const sizes = await page.evaluate(() => {
    const main = document.querySelector("main");
    const wide = [...document.querySelectorAll("main *")]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      // inside a box that scrolls sideways is fine: that is how a wide table is read on a phone
      .filter((el) => !el.closest(".overflow-x-auto, .overflow-auto, pre, dialog"))
      .slice(0, 3)
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)}`);
    return {
      document: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
      mainOverflow: main ? main.scrollWidth - main.clientWidth : 0,
      wide,
    };
  });
  // Soft: the walk reports every page that overflows in one run, then fails.
  expect.soft(sizes.document, `page wider than the screen: ${sizes.wide.join(", ")}`).toBeLessThanOrEqual(sizes.viewport);
  expect.soft(sizes.mainOverflow, `content wider than <main>: ${sizes.wide.join(", ")}`).toBeLessThanOrEqual(0);
}

/** On a phone the sidebar is a "Menu" disclosure: it opens, shows the links, and Escape closes it with focus back. */
export async function expectCollapsedNavWorks(page: Page) {
  const menu = page.getByRole("button", { name: "Menu" });
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav).toBeHidden();
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(nav.getByRole("link", { name: "Request log" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(nav).toBeHidden();
  await expect(menu).toBeFocused();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
}

/** axe-core on the whole page: no critical, serious or moderate violation (minor ones are not failed). */
export async function expectAccessible(page: Page, where: string) {
  // axe.run in the page itself (legacy mode): the app has no frames, so the default's per-frame
  // runPartial plus a finishRun in a new blank page only adds a page and two more injections of
  // axe's source per check; and only violations get every node's selector. The same rules run:
  // the walk's axe time halved (33.7 → 17.2 s over the empty walk's 31 checks), with the same
  // violations found on a page built to have them (docs/decisions/0154-ci-time.md).
  const { violations } = await new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ["violations"] })
    .analyze();
  // The dashboard keeps every rule of moderate impact or worse at zero on every page, at both widths
  // (issue 52 items 8 and 9, docs/dashboard.md): a landmark around everything (region), no skipped
  // heading level (heading-order), and the rest of axe's moderate rules.
  const blocking = violations.filter((v) => v.impact !== "minor");
  const report = blocking.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 5)
        .join("\n    ")}`,
  );
  // Soft: every page's violations are reported in one run, then the test fails.
  expect.soft(report, `axe on ${where}`).toEqual([]);
}

/**
 * Moves focus with Tab (or Shift+Tab) until `target` has it, as a keyboard user does; fails when it
 * is not reached within `max` presses (an element the keyboard cannot reach is a bug).
 */
export async function tabTo(page: Page, target: Locator, { back = false, max = 80 } = {}) {
  await expect(target).toBeVisible();
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  await expect(target, `reached with ${max} × ${back ? "Shift+Tab" : "Tab"}`).toBeFocused({ timeout: 1 });
}
