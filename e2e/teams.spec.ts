import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { shot } from "./shot";

const PASSWORD = "a team member's passphrase";

/** The owner makes an invite link in Settings for `role`; its URL as the page shows it, once. */
async function inviteLink(page: Page, role: "admin" | "viewer", previous?: string): Promise<string> {
  await page.getByLabel("Role", { exact: true }).selectOption(role);
  await page.getByRole("button", { name: "Create invite link" }).click();
  const link = page.getByTestId("invite-link");
  await expect(link).toContainText("/invite/");
  // The box shows the newest link: wait until it is not the one made before.
  if (previous) await expect(link).not.toContainText(previous);
  const url = (await link.textContent()) ?? "";
  return new URL(url).pathname;
}

/** A new browser (no session) opens the link and joins with a new account. */
async function join(browser: Browser, path: string, email: string): Promise<Page> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto(path);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Join the workspace" }).click();
  await expect(page).toHaveURL(/\/overview$/);
  return page;
}

test("the owner invites an admin and a viewer; the viewer only looks, the admin changes a destination, the owner reads it in the audit log", async ({
  page,
  browser,
}) => {
  const tag = Date.now().toString(36);
  const source = await createSource(page, `Team shop ${tag}`);
  const bin = await createCaptureBin(page, { name: `Team receiver ${tag}` });
  const destination = await api(page, "POST", "/api/destinations", {
    name: `Team hook ${tag}`,
    urls: [bin.url],
    sourceIds: [source.id],
    sharedSecret: `team-secret-${tag}`,
    headers: [{ name: "Authorization", value: `Bearer team-token-${tag}-0123456789` }],
  });
  await sendBatch(page, source.writeKey, [{ type: "track", userId: `member-${tag}`, event: "Order Completed" }]);

  // The owner invites from Settings: a link to copy, one per role.
  await page.goto("/settings");
  const adminLink = await inviteLink(page, "admin");
  const viewerLink = await inviteLink(page, "viewer", adminLink);
  await expect(page.getByRole("list", { name: "Open invitations" }).getByRole("listitem")).toHaveCount(2);
  await shot(page, "settings-members");

  const admin = await join(browser, adminLink, `admin-${tag}@example.com`);
  const viewer = await join(browser, viewerLink, `viewer-${tag}@example.com`);
  // A link works once.
  const again = await browser.newPage({ storageState: { cookies: [], origins: [] } });
  await again.goto(viewerLink);
  await expect(again.getByRole("heading", { name: "This invitation no longer works" })).toBeVisible();
  await again.close();

  // The viewer inspects the request log, but sees no secret, no write key and no control that changes anything.
  await viewer.goto(`/log?view=attempts&destinationId=${destination.id}`);
  const rows = viewer.getByRole("table", { name: "Attempts" }).getByRole("row");
  await expect(rows).toHaveCount(2, { timeout: 30_000 });
  await rows.nth(1).click();
  const panel = viewer.getByRole("complementary", { name: "Attempt detail" });
  await expect(panel.getByText(`POST ${bin.url}`)).toBeVisible();
  await expect(panel.getByRole("button", { name: "Replay message" })).toHaveCount(0);
  await expect(viewer.getByRole("button", { name: "Replay failed…" })).toHaveCount(0);
  await viewer.goto(`/destinations/${destination.id}`);
  await expect(viewer.getByRole("heading", { name: `Team hook ${tag}` })).toBeVisible();
  for (const control of ["Disable", "Delete", "Reveal shared secret", "Send test track"]) {
    await expect(viewer.getByRole("button", { name: control })).toHaveCount(0);
  }
  await expect(viewer.getByRole("link", { name: "Edit" })).toHaveCount(0);
  await expect(viewer.locator("body")).not.toContainText(`team-secret-${tag}`);
  await viewer.goto(`/sources/${source.id}`);
  await expect(viewer.getByRole("heading", { name: `Team shop ${tag}` })).toBeVisible();
  await expect(viewer.getByTestId("write-key")).toHaveCount(0);
  await expect(viewer.locator("body")).not.toContainText(source.writeKey.slice(0, 6));
  await shot(viewer, "viewer-destination");
  // What the destination sent its capture URL: its write-only header value stays masked for a viewer,
  // and the capture page offers no test-send the role cannot make.
  await viewer.goto(`/capture/${bin.id}`);
  await viewer.getByRole("list", { name: "Captured requests" }).getByRole("button").first().click();
  const headers = viewer.getByRole("region", { name: "Request details" }).getByRole("table", { name: "Request headers" });
  await expect(headers.getByText("••••6789")).toBeVisible();
  await expect(viewer.locator("body")).not.toContainText(`team-token-${tag}`);
  await expect(viewer.getByRole("button", { name: /^Send test/ })).toHaveCount(0);

  // The admin changes the destination in the edit form.
  await admin.goto(`/destinations/${destination.id}/edit`);
  await admin.getByLabel("Name", { exact: true }).fill(`Team hook ${tag} v2`);
  await admin.getByRole("button", { name: "Save changes" }).click();
  await expect(admin.getByRole("heading", { name: `Team hook ${tag} v2` })).toBeVisible();

  // The owner sees who changed what, field by field.
  await page.goto("/audit");
  await page.getByLabel("Resource").selectOption("destination");
  await page.getByLabel("Who (email or token)").fill(`admin-${tag}@example.com`);
  await page.getByRole("button", { name: "Filter" }).click();
  const event = page.getByTestId("audit-event").first();
  await expect(event).toContainText("destination.update");
  await expect(event).toContainText(`by admin-${tag}@example.com`);
  // Which destination: by its name now, a link to it.
  await expect(event.getByRole("link", { name: `Team hook ${tag} v2` })).toHaveAttribute("href", `/destinations/${destination.id}`);
  await expect(event.getByTestId("change-name")).toContainText(`Team hook ${tag} → Team hook ${tag} v2`);
  await shot(page, "audit-log");
  await admin.context().close();
  await viewer.context().close();
});
