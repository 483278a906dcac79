import { expect, test } from "./fixtures";
import { api, createSource } from "./api";
import { expectAccessible, expectNoHorizontalOverflow, PHONE } from "./checks";

// The rate limit section of the destination form (docs/webhooks.md#rate-limits), at phone width and by keyboard.
test.use({ viewport: PHONE });

test("limit a destination's rate by keyboard at 390 px: a refused number names its reason, the page shows the limit and the backlog", async ({
  page,
}) => {
  const source = "Partner feed";
  await createSource(page, source);
  await page.goto("/destinations/new");
  await page.getByLabel("Name", { exact: true }).fill("Slow partner");
  await page.getByLabel("URL 1", { exact: true }).fill("https://partner.example.com/hook");
  await page.getByRole("checkbox", { name: source }).check();

  const perSecond = page.getByLabel("Deliveries per second", { exact: true });
  const atOnce = page.getByLabel("Deliveries at once", { exact: true });
  await perSecond.focus();
  await page.keyboard.type("0");
  await page.keyboard.press("Tab");
  await expect(atOnce).toBeFocused();
  await page.keyboard.type("4");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(perSecond).toBeFocused();
  await expect(perSecond).toHaveAccessibleDescription("At least 1");
  await expectNoHorizontalOverflow(page);

  await perSecond.fill("20");
  await expect(perSecond).toHaveAccessibleDescription("Blank: no limit. At most 10,000.");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page).toHaveURL(/\/destinations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop();
  expect((await api(page, "GET", `/api/destinations/${id}`)).rateLimit).toEqual({ perSecond: 20, concurrency: 4 });
  await expect(page.getByText("Nothing pending.")).toBeVisible();
  await expect(page.getByText("Rate limit: 20 a second, 4 at once; deliveries over it wait their turn.")).toBeVisible();
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "destination page with its backlog");
});
