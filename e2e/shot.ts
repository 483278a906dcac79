import type { Page } from "@playwright/test";
import { ARTIFACTS } from "./owner";

/**
 * The dashboard scrolls inside <main>, so a full-page screenshot would stop at the viewport:
 * grow the viewport to the content first, then shoot, then put it back.
 */
export async function shot(page: Page, name: string) {
  const before = page.viewportSize();
  const height = await page.evaluate(() => Math.max(document.querySelector("main")?.scrollHeight ?? 0, document.body.scrollHeight));
  await page.setViewportSize({ width: 1440, height: Math.min(Math.max(height, 900), 4000) });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
  if (before) await page.setViewportSize(before);
}
