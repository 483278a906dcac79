import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { shot } from "./shot";

test("build an audience, preview it, connect it to a capture URL, sync now, see the identify calls arrive", async ({ page }) => {
  test.setTimeout(120_000);
  // Setup the story does not exercise in the browser: profiles through the Tracking API, a
  // capture URL, and a Webhooks destination pointing at it (not connected to any source, so it
  // hears only from the audience).
  const source = await createSource(page, "Audience app");
  await sendBatch(page, source.writeKey, [
    { type: "identify", userId: "aud-ann", traits: { plan: "pro", email: "ann@example.com" } },
    { type: "identify", userId: "aud-bob", traits: { plan: "pro", email: "bob@example.com" } },
    { type: "identify", userId: "aud-cat", traits: { plan: "free", email: "cat@example.com" } },
    { type: "track", userId: "aud-cat", event: "Order Completed", properties: { total: 250 } },
  ]);
  const bin = await createCaptureBin(page, { name: "Audience receiver" });
  await api(page, "POST", "/api/destinations", { name: "Audience capture", urls: [bin.url], sourceIds: [] });

  // Build it in the browser; the preview counts as the condition takes shape.
  await page.goto("/audiences");
  await expect(page.getByRole("heading", { name: "Audiences", exact: true })).toBeVisible();
  await page.getByRole("link", { name: "New audience" }).first().click();
  await page.getByLabel("Audience name").fill("E2E Premium Users");
  await expect(page.getByText("e2e_premium_users")).toBeVisible();
  await page.getByLabel("Trait name").fill("plan");
  await page.getByLabel("Trait value").fill("pro");
  await expect(page.getByTestId("preview-count")).toHaveText("2");
  // OR a big order: cat joins the preview.
  await page.getByLabel("Match").first().selectOption("any");
  await page.getByRole("button", { name: "+ Event condition" }).click();
  await page.getByLabel("Event name").fill("Order Completed");
  // "At least 0 times" is refused in the builder as typed, as the API would refuse it.
  await page.getByLabel("At least").fill("0");
  await expect(page.getByLabel("At least")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("At least")).toHaveAccessibleDescription("At least 1");
  await page.getByLabel("At least").fill("1");
  await expect(page.getByLabel("At least")).not.toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "+ property filter" }).click();
  await page.getByLabel("Property name").fill("total");
  await page.getByLabel("Property operator").selectOption("gt");
  await page.getByLabel("Property value").fill("100");
  await expect(page.getByTestId("preview-count")).toHaveText("3");
  await shot(page, "audience-builder");
  await page.getByRole("button", { name: "Create audience" }).click();

  // The first sync runs at once (no destination yet: membership only).
  await expect(page.getByRole("heading", { name: "E2E Premium Users" })).toBeVisible();
  await expect(page.getByTestId("sync-row").first()).toContainText("completed");
  await expect(page.getByTestId("audience-size")).toHaveText("3");
  await page.getByLabel("Search members").fill("bob@");
  await expect(page.getByRole("list", { name: "Members" }).getByRole("listitem")).toHaveCount(1);
  await expect(page.getByRole("list", { name: "Members" })).toContainText("aud-bob");

  // Connect the destination, then "Sync now": it gets every member with true.
  await page.getByRole("link", { name: "Edit" }).click();
  await page.getByRole("checkbox", { name: "Audience capture" }).check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { name: "E2E Premium Users" })).toBeVisible();
  await page.getByRole("button", { name: "Sync now" }).click();
  await expect(page.getByTestId("sync-row")).toHaveCount(2);
  await expect(page.getByTestId("sync-row").first()).toContainText("completed");
  await expect(page.getByTestId("sync-row").first()).toContainText("3 of 3 sent");
  await shot(page, "audience-detail");

  // The identify calls arrive at the capture URL.
  await page.goto(`/capture/${bin.id}`);
  const captured = page.getByRole("list", { name: "Captured requests" }).getByRole("listitem");
  await expect(captured).toHaveCount(3, { timeout: 30_000 });
  // The list carries previews; each request's body is fetched whole.
  const { requests } = await api<{ requests: { id: string }[] }>(page, "GET", `/api/capture-bins/${bin.id}/requests`);
  const bodies = await Promise.all(
    requests.map(async (r) => JSON.parse((await api<{ body: string }>(page, "GET", `/api/capture-bins/${bin.id}/requests/${r.id}`)).body)),
  );
  expect(bodies.map((b) => `${b.type} ${b.userId} ${JSON.stringify(b.traits)}`).sort()).toEqual([
    'identify aud-ann {"e2e_premium_users":true}',
    'identify aud-bob {"e2e_premium_users":true}',
    'identify aud-cat {"e2e_premium_users":true}',
  ]);
  await shot(page, "audience-capture");

  await page.goto("/audiences");
  await expect(page.getByRole("row", { name: /E2E Premium Users/ }).getByTestId("audience-size")).toHaveText("3");
  await shot(page, "audiences");
});
