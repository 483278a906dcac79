import { expect, test } from "./fixtures";
import { api, createSource, sendBatch } from "./api";
import { DESKTOP, PHONE } from "./checks";
import { shot } from "./shot";

/**
 * A tracking plan from the dashboard (docs/tracking-plans.md), by keyboard: write an event's JSON
 * Schema (the compiler's reason shows as you type), connect a source, block violations; then a call
 * that breaks the schema is marked Blocked in the source's debugger with its violation, and a good
 * one is not. The editor is checked at phone width too.
 */
test("write a tracking plan by keyboard and see a blocked call with its violation in the debugger", async ({ page }) => {
  test.setTimeout(120_000);
  const tag = Date.now().toString(36);
  const source = await createSource(page, `Plan shop ${tag}`);

  await page.goto("/tracking-plans");
  await expect(page.getByRole("heading", { name: "Tracking plans", exact: true })).toBeVisible();
  await page.getByRole("link", { name: "New tracking plan" }).first().click();
  await expect(page.getByRole("heading", { name: "New tracking plan" })).toBeVisible();

  await page.getByLabel("Name", { exact: true }).fill(`Plan ${tag}`);
  await page.getByRole("button", { name: "Add an event" }).click();
  // Focus lands in the new event's name.
  await expect(page.getByLabel("Event name")).toBeFocused();
  await page.keyboard.type("Order Completed");

  const schema = page.getByLabel("JSON Schema of its properties");
  await schema.fill('{"type": "object", "properties": {"total": {"type": "numbr"}}}');
  // The server's compiler says what is wrong while typing, before anything is saved.
  await expect(page.getByRole("alert").filter({ hasText: /type/ })).toBeVisible();
  await expect(schema).toHaveAttribute("aria-invalid", "true");
  await schema.fill('{"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}');
  await expect(page.getByText("Valid JSON Schema")).toBeVisible();

  // Modes and sources by keyboard: the radio group takes arrow keys, the checkbox Space.
  await page.getByRole("radio", { name: "Flag (deliver)" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("radio", { name: "Block (don't deliver)" })).toBeChecked();
  await page.getByRole("checkbox", { name: `Plan shop ${tag}` }).focus();
  await page.keyboard.press("Space");
  await expect(page.getByRole("checkbox", { name: `Plan shop ${tag}` })).toBeChecked();

  await page.getByRole("button", { name: "Create plan" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: `Plan ${tag}` })).toBeVisible();
  await expect(page.getByText("Version 1.")).toBeVisible();
  await shot(page, "tracking-plan");

  await page.setViewportSize(PHONE);
  await shot(page, "tracking-plan");
  // The debugger names a row by its messageId from desktop width on.
  await page.setViewportSize(DESKTOP);

  await sendBatch(page, source.writeKey, [
    { type: "track", userId: "u1", messageId: `good-${tag}`, event: "Order Completed", properties: { total: 5 } },
    { type: "track", userId: "u1", messageId: `bad-${tag}`, event: "Order Completed", properties: { total: "5" } },
  ]);
  await page.goto(`/sources/${source.id}`);
  const bad = page.getByRole("button", { name: new RegExp(`bad-${tag}`) });
  await expect(bad).toContainText("Blocked");
  await expect(page.getByRole("button", { name: new RegExp(`good-${tag}`) })).toContainText("Accepted");
  await bad.click();
  const violations = page.getByRole("list", { name: "Tracking plan violations" });
  await expect(violations).toContainText("/properties/total");
  await expect(violations).toContainText("must be number");
  await shot(page, "source-debugger-violations");

  // The plan's violations view counts the blocked call, per event and rule.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tracking plans", exact: true }).click();
  await page.getByRole("link", { name: new RegExp(`Plan ${tag}`) }).click();
  const table = page.getByRole("table", { name: "Violations by event and rule" });
  await expect(table.getByRole("row", { name: /Order Completed type 1 1/ })).toBeVisible();
  // The plan as it stands, tested against the source's recent calls: the bad one would be blocked.
  await page.getByRole("button", { name: "Test the plan as typed" }).click();
  await expect(page.getByRole("status").filter({ hasText: "newest calls" })).toContainText("1 pass, 0 would be flagged, 1 blocked");
  await page.setViewportSize(PHONE);
  await shot(page, "tracking-plan-violations");
  await page.setViewportSize(DESKTOP);

  // The plan is listed with its modes.
  const plans = await api(page, "GET", "/api/tracking-plans");
  expect(plans.trackingPlans.find((p: { name: string }) => p.name === `Plan ${tag}`)).toMatchObject({
    violations: "block",
    sourceIds: [source.id],
  });
});
