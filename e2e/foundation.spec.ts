import { expect, test } from "./fixtures";
import { SETUP_CODE } from "../test/harness/stack";
import { OWNER, STORAGE_STATE } from "./owner";
import { shot } from "./shot";
import { walkPage } from "./walk";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("fresh install: set up the owner, log in, create a source and copy its write key", async ({ page, context }) => {
  // A logged-out visit to a dashboard page lands on the (first-run) setup page.
  await page.goto("/sources");
  await expect(page).toHaveURL(/\/setup/);
  // The only moment the setup page can be seen: it passes the page walk's checks now.
  await walkPage(page, "/setup", "setup", { dark: true });
  // Without the one-time code nobody can claim the install: the page asks for it, a wrong one is refused.
  await page.getByLabel("Setup code").fill("not-the-code-at-all");
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Create owner account" }).click();
  await expect(page.getByText(/needs the one-time setup code/)).toBeVisible();

  // The link `npm start` prints carries the code: the newcomer just clicks it.
  await page.goto(`/setup?code=${SETUP_CODE}`);
  await expect(page.getByLabel("Setup code")).toHaveCount(0);
  await page.getByLabel("Email").fill("not-an-email");
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create owner account" }).click();
  await expect(page.getByText("Enter a valid email address")).toBeVisible();
  await expect(page.getByText("Use at least 10 characters")).toBeVisible();

  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Create owner account" }).click();
  await expect(page.getByRole("heading", { name: "Sources", exact: true })).toBeVisible();

  // Log out, then a dashboard page sends us to the login page.
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings/);

  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill("wrong password!");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByText("Email or password is incorrect")).toBeVisible();
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Log in" }).click();
  // Back where the logged-out visit was headed.
  await expect(page).toHaveURL(/\/settings$/);
  await page.getByRole("link", { name: "Sources" }).click();

  await expect(page.getByText("No sources yet")).toBeVisible();
  await page.getByRole("button", { name: "Create your first source" }).click();
  await page.getByLabel("Source name").fill("Backend");
  await page.getByRole("button", { name: "Create source" }).click();
  await page.getByRole("link", { name: /Backend/ }).click();
  await expect(page.getByRole("heading", { name: "Backend", exact: true })).toBeVisible();

  await page.getByRole("button", { name: "Reveal" }).click();
  const shown = (await page.getByTestId("write-key").textContent())!.trim();
  expect(shown).toMatch(/^[A-Za-z0-9]{32}$/);
  await page.getByRole("button", { name: "Copy write key" }).click();
  await expect(page.getByRole("button", { name: "Copied ✓" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);

  // The copied key works against the Tracking API as a Segment client would use it.
  const tracked = await page.request.post("/v1/track", {
    headers: { authorization: `Basic ${Buffer.from(`${shown}:`).toString("base64")}` },
    data: { userId: "e2e-user", event: "Source Created" },
  });
  expect(tracked.status()).toBe(200);
  expect(await tracked.json()).toEqual({ success: true });

  // Rotating the key is confirmed in the in-app dialog: cancel keeps the key, confirm replaces it.
  await page.getByRole("button", { name: "Rotate" }).click();
  const rotate = page.getByRole("dialog", { name: "Rotate the write key?" });
  await rotate.getByRole("button", { name: "Cancel" }).click();
  await expect(rotate).toBeHidden();
  await expect(page.getByTestId("write-key")).toHaveText(shown);
  // The old key can keep working for a grace period, so clients move without a failed call.
  await page.getByRole("button", { name: "Rotate" }).click();
  await rotate.getByRole("radio", { name: "1 hour" }).check();
  await expect(rotate.getByText("Clients can keep sending with the current key for 1 hour")).toBeVisible();
  await rotate.getByRole("button", { name: "Rotate write key" }).click();
  await expect(rotate).toBeHidden();
  await expect(page.getByTestId("write-key")).not.toHaveText(shown);
  const oldKey = page.getByRole("status", { name: "Old write key" });
  await expect(oldKey).toContainText(`${shown.slice(0, 6)}••••`);
  // A countdown: "59 min 58 s", then less (a loaded machine may take a while to get here).
  const left = page.getByTestId("grace-left");
  await expect(left).toHaveText(/^5\d min \d+ s$/);
  const before = await left.textContent();
  await expect(left).not.toHaveText(before!);
  const withOldKey = await page.request.post("/v1/track", {
    headers: { authorization: `Basic ${Buffer.from(`${shown}:`).toString("base64")}` },
    data: { userId: "e2e-user", event: "Old Key Still Works" },
  });
  expect(withOldKey.status()).toBe(200);
  await shot(page, "source-rotated");

  // The only source is checked on a new destination, so it does not silently receive nothing.
  await page.goto("/destinations/new");
  await expect(page.getByRole("checkbox", { name: "Backend" })).toBeChecked();

  // So is revoking an API token.
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByLabel("New API token").fill("CI pipeline");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByTestId("new-token")).toBeVisible();
  await page.getByRole("button", { name: "Revoke CI pipeline" }).click();
  await page.getByRole("dialog", { name: 'Revoke "CI pipeline"?' }).getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByRole("row", { name: /CI pipeline/ }).getByText("Revoked")).toBeVisible();
  await page.getByRole("link", { name: "Sources" }).click();

  await shot(page, "sources");
  await context.storageState({ path: STORAGE_STATE });
});
