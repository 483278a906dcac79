import { expect, test, type APIRequestContext, type BrowserContext } from "@playwright/test";
import { ARTIFACTS } from "./owner";

/** page.request carries the session cookie; writes also need the CSRF header from er_csrf. */
async function apiAs(context: BrowserContext, request: APIRequestContext) {
  const csrf = (await context.cookies()).find((c) => c.name === "er_csrf")?.value;
  expect(csrf, "the owner's session has a CSRF cookie").toBeTruthy();
  return async <T>(path: string, data: unknown): Promise<T> => {
    const res = await request.post(path, { data, headers: { "x-csrf-token": decodeURIComponent(csrf!) } });
    expect(res.ok(), `${path} → ${res.status()} ${await res.text()}`).toBe(true);
    return (await res.json()) as T;
  };
}

test("erase a user from the dashboard and see the delete notification arrive at a capture URL", async ({ page, context }) => {
  const post = await apiAs(context, page.request);
  const tag = Date.now().toString(36);
  const userId = `erase-me-${tag}`;
  const source = await post<{ id: string; writeKey: string }>("/api/sources", { name: `Shop ${tag}` });
  const bin = await post<{ id: string; url: string }>("/api/capture-bins", { name: `deletions ${tag}` });
  await post("/api/destinations", { name: `Hook ${tag}`, urls: [bin.url], headers: [], enabled: true, sourceIds: [source.id] });

  // The user's data, through the Tracking API.
  const tracked = await page.request.post("/v1/track", {
    headers: { authorization: `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}` },
    data: { userId, event: "Order Completed", properties: { total: 42 } },
  });
  expect(tracked.status()).toBe(200);

  await page.goto("/deletions");
  await expect(page.getByRole("heading", { name: "Deletions" })).toBeVisible();
  await page.getByRole("button", { name: "New deletion request" }).click();

  // Validation in the browser: nothing to erase.
  await page.getByLabel("User IDs").fill(" \n , ");
  await page.getByRole("button", { name: "Erase users" }).click();
  await expect(page.getByText("Enter at least one userId")).toBeVisible();

  // A pasted list: the user, a duplicate and someone Eventrail never saw.
  await page.getByLabel("User IDs").fill(`${userId}\n${userId}, never-seen-${tag}\n`);
  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: "Erase 2 users" }).click();

  await expect(page.getByRole("heading", { name: "Deletion request" })).toBeVisible();
  await expect(page.locator("[data-status=completed]").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("list", { name: "Affected sources" })).toContainText(`Shop ${tag}`);
  const row = page.getByRole("table", { name: "Delete notifications" }).getByRole("row", { name: new RegExp(userId) });
  await expect(row).toContainText(`Hook ${tag}`);
  await expect(row.locator("[data-status=delivered]")).toBeVisible({ timeout: 60_000 });
  await page.screenshot({ path: `${ARTIFACTS}/deletion-detail.png`, fullPage: true });

  // What the capture URL received: the delete body, exactly.
  const res = await page.request.get(`/api/capture-bins/${bin.id}/requests`);
  const { requests } = (await res.json()) as { requests: { body: string; headers: Record<string, string> }[] };
  const deletes = requests.map((r) => JSON.parse(r.body)).filter((b) => b.type === "delete");
  expect(deletes).toHaveLength(1);
  expect(Object.keys(deletes[0]).sort()).toEqual(["timestamp", "type", "userId"]);
  expect(deletes[0]).toMatchObject({ type: "delete", userId });
  expect(deletes[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  // The list shows the finished request.
  await page.getByRole("link", { name: "Deletions" }).first().click();
  const item = page.getByRole("link", { name: new RegExp(userId) });
  await expect(item.locator("[data-status=completed]")).toBeVisible();
  await expect(item).toContainText("1 source affected · 1 notification");
  await page.screenshot({ path: `${ARTIFACTS}/deletions.png`, fullPage: true });
});
