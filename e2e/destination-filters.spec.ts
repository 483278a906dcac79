import { expect, test } from "./fixtures";
import { api, createSource, sendBatch } from "./api";
import { shot } from "./shot";

// Filters on what is inside a call, field lists, sampling (docs/routing.md#destination-filters) and
// pause/resume (docs/routing.md#pause), in the destination form and page, by keyboard, at desktop
// and phone width (project "phone").
test("filter on what is inside a call, drop fields, sample, and pause and resume by keyboard", async ({ page }) => {
  const sourceName = `Checkout ${test.info().project.name}`;
  const source = await createSource(page, sourceName);
  await sendBatch(page, source.writeKey, [
    { type: "track", userId: "k", event: "Order Completed", properties: { order: { total: 250 } }, context: { ip: "203.0.113.9" } },
    { type: "track", userId: "k", event: "Order Completed", properties: { order: { total: 20 } }, context: { ip: "203.0.113.9" } },
  ]);
  await page.goto("/destinations/new");
  await page.getByLabel("Name", { exact: true }).fill("Big orders");
  await page.getByLabel("URL 1", { exact: true }).fill("https://orders.example.com/big");
  await page.getByRole("checkbox", { name: sourceName }).check();

  // Conditions typed into the JSON box: text that does not parse says so in place.
  const where = page.getByLabel("Conditions (JSON, optional)");
  await where.focus();
  await page.keyboard.type('{"field": "properties.order.total", "op": "gt", "value": ');
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(where).toHaveAccessibleDescription(/^Not valid JSON/);
  await where.focus();
  await page.keyboard.press("End");
  await page.keyboard.type("100}");
  await page.getByLabel("Drop fields").fill("context.ip");
  await expect(page.getByTestId("filter-preview")).toHaveText("1 of the last 2 calls of its sources would be sent here.");
  await expect(page.getByText("Left out: 1 by conditions.")).toBeVisible();
  await page.getByText("Body as sent, for the newest call that passes").click();
  await expect(page.getByRole("status", { name: "Filter preview" }).locator("pre")).not.toContainText("203.0.113.9");
  await page.getByLabel("Sample (% of the calls that pass)").fill("0");
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page.getByText("At least 0.01 %: to send nothing, disable the destination")).toBeVisible();
  await page.getByLabel("Sample (% of the calls that pass)").fill("50");
  await shot(page, "destination-filters-form");
  await page.getByRole("button", { name: "Create destination" }).focus();
  await page.keyboard.press("Enter");

  await expect(page.getByRole("heading", { name: "Big orders", exact: true })).toBeVisible();
  const id = page.url().split("/destinations/")[1];
  expect((await api(page, "GET", `/api/destinations/${id}`)).filter).toMatchObject({
    where: { field: "properties.order.total", op: "gt", value: 100 },
    samplePercent: 50,
    drop: ["context.ip"],
    allow: [],
  });
  await expect(page.locator("dl").getByText("All calls; with conditions; 50 % sampled; dropping context.ip")).toBeVisible();

  // Pause and resume from the page, by keyboard.
  await page.getByRole("button", { name: "Pause", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Paused", { exact: true })).toBeVisible();
  await expect(page.getByText(/^Paused since .*until it is resumed\.$/)).toBeVisible();
  expect((await api(page, "GET", `/api/destinations/${id}`)).pausedAt).not.toBeNull();
  await shot(page, "destination-paused");
  await page.getByRole("button", { name: "Resume", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Pause", exact: true })).toBeVisible();
  expect((await api(page, "GET", `/api/destinations/${id}`)).pausedAt).toBeNull();

  // Editing keeps what the form shows of the filter.
  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await expect(page.getByLabel("Drop fields")).toHaveValue("context.ip");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { name: "Big orders", exact: true })).toBeVisible();
  expect((await api(page, "GET", `/api/destinations/${id}`)).filter).toMatchObject({ samplePercent: 50, drop: ["context.ip"] });
  await api(page, "DELETE", `/api/destinations/${id}`);
});
