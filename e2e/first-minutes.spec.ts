import { expect, test } from "./fixtures";
import { createSource } from "./api";
import { DESKTOP, PHONE, expectAccessible, tabTo } from "./checks";
import { shot } from "./shot";

/**
 * A newcomer's first minutes (issue 52 item 7), at 1440 and 390 px, its buttons pressed by keyboard:
 * the source page's curl copies with the key; the destination form offers a capture URL; after
 * creating, focus is on the new destination's heading; a test result shows the URL it went to, not "http://…".
 */
for (const size of [DESKTOP, PHONE]) {
  test(`first minutes at ${size.width} px: copy a runnable curl, try a destination on a capture URL`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(size);
    const run = `${size.width}-${Date.now().toString(36)}`;
    const source = await createSource(page, `First minutes ${run}`);

    // The source page: the curl shows the key masked until Reveal, and Copy copies it with the key.
    await page.goto(`/sources/${source.id}`);
    const curl = page.getByLabel("curl command");
    await expect(curl).toContainText(`${source.writeKey.slice(0, 6)}•`);
    await expect(curl).not.toContainText("<write key>");
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await tabTo(page, page.getByRole("button", { name: "Copy curl command" }));
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`-u '${source.writeKey}:'`);
    await expectAccessible(page, `source page (${size.width}px)`);
    await shot(page, "source-try-it");

    // The destination form: "Use a capture URL" fills URL 1 with a new capture URL.
    await page.goto("/destinations/new");
    await page.getByLabel("Name", { exact: true }).fill(`Tried ${run}`);
    await tabTo(page, page.getByRole("button", { name: "Use a capture URL" }));
    await page.keyboard.press("Enter");
    const url1 = page.getByLabel("URL 1", { exact: true });
    await expect(url1).toHaveValue(/\/c\/[\w-]+$/);
    await expect(url1).toBeFocused();
    const binUrl = await url1.inputValue();
    await page.getByRole("checkbox", { name: `First minutes ${run}` }).check();
    await expectAccessible(page, `destination form (${size.width}px)`);
    await shot(page, "destination-form-capture");
    await page.getByRole("button", { name: "Create destination" }).click();
    // Created: focus on the new destination's heading, not on the page body.
    await expect(page.getByRole("heading", { name: `Tried ${run}`, exact: true })).toBeFocused();

    // A test event: the result names the capture URL it went to, cut in the middle at most.
    await tabTo(page, page.getByRole("button", { name: "Send test track" }), { max: 200 });
    await page.keyboard.press("Enter");
    const result = page.getByRole("region", { name: "Test result" });
    await expect(result).toBeVisible({ timeout: 30_000 });
    await expect(result).toBeFocused();
    // What is on screen: the leaves that are not the screen reader's copy of the whole URL.
    const shown = await result
      .getByTestId("test-result-url")
      .first()
      .evaluate((el) =>
        [el, ...el.querySelectorAll("*")]
          .filter((e) => e.children.length === 0 && !e.classList.contains("sr-only"))
          .map((e) => e.textContent)
          .join(""),
      );
    // Its host and its id both show (a long one is cut in the middle, never to "http://…").
    expect(shown).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(shown.endsWith(binUrl.slice(-12))).toBe(true);
    await expectAccessible(page, `destination page with a test result (${size.width}px)`);
    await shot(page, "destination-test-result");
    // A test-send counts toward neither endpoint health nor alerts (issue 52 item 3): read afresh, its URL has no recent attempts.
    await page.reload();
    const health = page.getByRole("list", { name: "Endpoint health" }).getByRole("listitem").first();
    await expect(health).toHaveAttribute("data-state", "unknown");
    await expect(health).toContainText("No recent attempts");
  });
}
