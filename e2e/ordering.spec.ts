import { expect, test } from "./fixtures";
import { api, createSource } from "./api";
import { expectAccessible, expectNoHorizontalOverflow, PHONE } from "./checks";

// The Ordering section of the destination form (docs/webhooks.md#ordering), at phone width and by keyboard.
test.use({ viewport: PHONE });

test("keep each user's messages in order by keyboard at 390 px: a refused hold limit names its reason, the page shows the setting", async ({
  page,
}) => {
  const source = "App events";
  await createSource(page, source);
  await page.goto("/destinations/new");
  await page.getByLabel("Name", { exact: true }).fill("State sync");
  await page.getByLabel("URL 1", { exact: true }).fill("https://crm.example.com/hook");
  await page.getByRole("checkbox", { name: source }).check();

  const ordered = page.getByRole("checkbox", { name: "Keep each user's messages in order" });
  await expect(ordered).not.toBeChecked();
  await expect(page.getByLabel("Hold a message at most (minutes)")).toHaveCount(0);
  await ordered.focus();
  await page.keyboard.press("Space");
  await expect(ordered).toBeChecked();
  const hold = page.getByLabel("Hold a message at most (minutes)", { exact: true });
  await expect(hold).toHaveValue("60");
  await page.keyboard.press("Tab");
  await expect(hold).toBeFocused();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("0");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(hold).toBeFocused();
  await expect(hold).toHaveAccessibleDescription("At least 1 minute");
  await expectNoHorizontalOverflow(page);

  await hold.fill("15");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page).toHaveURL(/\/destinations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop();
  const saved = await api(page, "GET", `/api/destinations/${id}`);
  expect({ ordering: saved.ordering, maxHoldMinutes: saved.maxHoldMinutes }).toEqual({ ordering: "perUser", maxHoldMinutes: 15 });
  await expect(page.getByText("Per user: a user's message waits for their earlier ones (at most 15 minutes)")).toBeVisible();
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "destination page with per-user ordering");
});
