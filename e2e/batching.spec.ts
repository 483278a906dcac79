import { expect, test } from "./fixtures";
import { api, createSource } from "./api";
import { expectAccessible, expectNoHorizontalOverflow, PHONE } from "./checks";

// The Batching section of the destination form (docs/request-shape.md#batching), at phone width and by keyboard.
test.use({ viewport: PHONE });

test("turn batching on for a destination, with its errors at the field, at 390 px by keyboard", async ({ page }) => {
  const source = await createSource(page, "Batching story source");
  expect(source.writeKey).toBeTruthy();
  await page.goto("/destinations/new");
  await page.getByLabel("Name", { exact: true }).fill("Warehouse");
  await page.getByLabel("URL 1", { exact: true }).fill("https://warehouse.example.com/events");
  await page.getByRole("checkbox", { name: "Batching story source" }).check();

  // Off by default: a user who ignores it sends one event per request.
  const toggle = page.getByRole("checkbox", { name: "Send events in batches" });
  await expect(toggle).not.toBeChecked();
  await expect(page.getByLabel("Events per batch")).toHaveCount(0);
  await toggle.focus();
  await page.keyboard.press("Space");
  await expect(toggle).toBeChecked();

  const size = page.getByLabel("Events per batch");
  await expect(size).toHaveValue("100");
  await size.fill("5000");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(size).toBeFocused();
  await expect(size).toHaveAccessibleDescription(/At most 1000 events/);

  await size.fill("50");
  await page.getByLabel("Longest wait (ms)").fill("1500");
  await expect(page.getByText("A batch goes at most 1.5 s after its first event")).toBeVisible();
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "destination form with batching");

  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page).toHaveURL(/\/destinations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop();
  expect(await api(page, "GET", `/api/destinations/${id}`)).toMatchObject({ batch: { size: 50, maxWaitMs: 1500 }, numbers: "canonical" });
  // The destination page shows what it sends without opening the form (issue 52).
  await expect(page.getByText("Up to 50 events per request, sent within 1500 ms")).toBeVisible();
  await expect(page.getByText("Default body (the call as received)")).toBeVisible();
  await expect(page.getByText("As JavaScript writes them (default)")).toBeVisible();
  await expectNoHorizontalOverflow(page);
});
