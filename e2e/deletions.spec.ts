import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { DESKTOP, PHONE, expectAccessible } from "./checks";
import { shot } from "./shot";

const SECRET = "e2e-deletion-secret";

test("erase a user from the dashboard and see the delete notification arrive at a capture URL", async ({ page }) => {
  test.setTimeout(150_000);
  await page.setViewportSize(DESKTOP);
  // Setup the story does not exercise in the browser: a source with the user's data, a capture URL
  // and a signed Webhooks destination pointing at it.
  const tag = Date.now().toString(36);
  const userId = `erase-me-${tag}`;
  const source = await createSource(page, `Shop ${tag}`);
  const bin = await createCaptureBin(page, { name: `Deletions ${tag}` });
  await api(page, "POST", "/api/destinations", {
    name: `Hook ${tag}`,
    urls: [bin.url],
    headers: [],
    sharedSecret: SECRET,
    enabled: true,
    sourceIds: [source.id],
  });
  // A second destination of the source, on a URL template that refuses (400) beside a second URL: its
  // notice's result names the URL the template was filled to, never the raw {{userId}} (issue 52 item 7).
  const refusing = await createCaptureBin(page, { name: `Refusing ${tag}`, responseStatus: 400 });
  const templated = await api(page, "POST", "/api/destinations", {
    name: `Templated ${tag}`,
    urls: [`${refusing.url}/users/{{userId}}`, `${refusing.url}/other`],
    sourceIds: [source.id],
  });
  await sendBatch(page, source.writeKey, [{ type: "track", userId, event: "Order Completed", properties: { total: 42 } }]);
  // The track arrives first (a delivery still pending when the user is erased would be stopped).
  await expect
    .poll(async () => (await api(page, "GET", `/api/capture-bins/${bin.id}/requests`)).requests.length, { timeout: 60_000 })
    .toBe(1);

  await page.goto("/deletions");
  await expect(page.getByRole("heading", { name: "Deletions", exact: true })).toBeVisible();
  await page
    .getByRole("button", { name: /^(New deletion request|Create a deletion request)$/ })
    .first()
    .click();

  // Validation in the browser: nothing to erase.
  await page.getByLabel("User IDs").fill(" \n , ");
  await page.getByRole("button", { name: "Erase users" }).click();
  await expect(page.getByText("Enter at least one userId")).toBeVisible();

  // A pasted list: the user, a duplicate and someone Eventrail never saw.
  await page.getByLabel("User IDs").fill(`${userId}\n${userId}, never-seen-${tag}\n`);
  // Confirmed in the in-app dialog (never the browser's confirm()).
  await page.getByRole("button", { name: "Erase 2 users" }).click();
  const confirm = page.getByRole("dialog", { name: "Erase 2 users?" });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Erase 2 users" }).click();

  await expect(page.getByRole("heading", { name: "Deletion request", exact: true })).toBeVisible();
  await expect(page.locator("[data-status=completed]").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("list", { name: "Affected sources" })).toContainText(`Shop ${tag}`);
  // A user Eventrail never saw is not "Erased: Yes": there was nothing to erase.
  const users = page.getByRole("table", { name: "Users" });
  await expect(users.getByRole("row", { name: new RegExp(`never-seen-${tag}`) })).toContainText("Nothing stored for this user");
  await expect(users.getByRole("row", { name: new RegExp(`^${userId}`) })).toContainText("Yes");
  const notices = page.getByRole("table", { name: "Delete notifications" }).getByRole("row", { name: new RegExp(userId) });
  const row = notices.filter({ hasText: `Hook ${tag}` });
  const refused = notices.filter({ hasText: `Templated ${tag}` });
  await expect(refused.locator("[data-status=failed]")).toBeVisible({ timeout: 60_000 });
  await expect(refused).toContainText("400 Bad Request");
  await expect(refused).toContainText(`${refusing.url}/users/${userId}`);
  await expect(refused).not.toContainText("{{");
  await expect(row.locator("[data-status=delivered]")).toBeVisible({ timeout: 60_000 });
  // Its attempts are one click away in the request log.
  await expect(row.getByRole("link", { name: "1", exact: true })).toHaveAttribute(
    "href",
    /^\/log\?messageId=delete-[0-9a-f]{32}&destinationId=/,
  );
  await expectAccessible(page, "deletion result (1440px)");
  await shot(page, "deletion-detail");
  // On a phone: the same result, the answer first, the URL it went to cut in the middle.
  await page.setViewportSize(PHONE);
  await expect(refused).toContainText("400 Bad Request");
  await expectAccessible(page, "deletion result (390px)");
  await shot(page, "deletion-detail");
  await page.setViewportSize(DESKTOP);

  // The list shows the finished request.
  await page.getByRole("navigation").getByRole("link", { name: "Deletions" }).click();
  const item = page.getByRole("link", { name: new RegExp(userId) });
  await expect(item.locator("[data-status=completed]")).toBeVisible();
  await expect(item).toContainText("1 source affected · 2 notifications");
  await shot(page, "deletions");

  // At the capture URL: the user's event it captured before is erased with every other copy
  // (docs/deletions.md#every-store); the delete body, exactly, signed with the destination's secret.
  await page.goto(`/capture/${bin.id}`);
  await expect(page.getByRole("list", { name: "Captured requests" }).getByRole("listitem")).toHaveCount(1);
  await page.getByRole("list", { name: "Captured requests" }).getByRole("button").first().click();
  // Checked by the server against the secret of the destination that sent it, which the page never sees.
  await expect(page.getByRole("region", { name: "Request details" }).getByText(`Checked against Hook ${tag}, which sent it`)).toBeVisible();
  const details = page.getByRole("region", { name: "Request details" });
  const body = JSON.parse((await details.getByLabel("Request body").textContent())!);
  expect(Object.keys(body).sort()).toEqual(["messageId", "timestamp", "type", "userId"]);
  expect(body).toMatchObject({ type: "delete", userId, messageId: expect.stringMatching(/^delete-[0-9a-f]{32}$/) });
  expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await expect(details.getByLabel("X-Signature verified")).toBeVisible();
  await shot(page, "deletion-capture");

  // The source's debugger: the erased call is labelled (nothing to expand), the notice is Eventrail's own.
  await page.goto(`/sources/${source.id}`);
  const calls = page.getByRole("list", { name: "Recent calls" });
  await expect(calls.getByRole("listitem", { name: /^Erased track/ })).toContainText("Erased by a deletion request");
  await expect(calls.getByRole("button", { name: /^(Accepted|Erased) track/ })).toHaveCount(0);
  await calls.getByRole("button", { name: /^Delete notice delete/ }).click();
  await expect(calls.getByRole("link", { name: /^deletion request [0-9a-f]{8}$/ })).toHaveAttribute("href", /^\/deletions\/[0-9a-f-]{36}$/);
  await shot(page, "source-after-deletion");
  // Its refusing endpoint goes with it: no later story meets its failures.
  await api(page, "DELETE", `/api/destinations/${templated.id}`);
});
