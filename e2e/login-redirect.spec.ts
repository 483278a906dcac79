import { expect, test } from "./fixtures";
import { OWNER } from "./owner";

// Issue 12 item 5: after logging in, `next` is followed only when it stays on the app's own origin
// (docs/dashboard.md#login). A logged-out browser (no saved session) logs in through the real page.
test.use({ storageState: { cookies: [], origins: [] } });

const OFFSITE = [
  "/%5C127.0.0.1:3960/x",
  "/%09/127.0.0.1:3960/x",
  "//evil.example",
  "https://evil.example",
  "/%5C%5Cevil.example",
  "javascript:alert(1)",
];

for (const next of OFFSITE) {
  test(`login with next=${next} stays on the app`, async ({ page, baseURL }) => {
    await page.goto(`/login?next=${next}`);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.getByRole("heading", { name: "Sources", exact: true })).toBeVisible();
    expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
    expect(new URL(page.url()).pathname).toBe("/sources");
  });
}

test("login with a next on the app goes there", async ({ page }) => {
  await page.goto(`/login?next=${encodeURIComponent("/settings")}`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page).toHaveURL(/\/settings$/);
});

test("the login page cannot be framed by another site", async ({ page, cspViolations }) => {
  const res = await page.goto("/login");
  expect(res!.headers()["x-frame-options"]).toBe("DENY");
  expect(res!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  // A page of another origin that frames it: Chromium refuses to render the login page inside.
  await page.setContent(`<iframe id="f" src="${page.url()}"></iframe>`);
  await expect.poll(() => cspViolations.some((v) => v.includes("frame-ancestors"))).toBe(true);
  const frame = page.frame({ url: /\/login/ });
  expect(
    (await frame
      ?.locator("body")
      .textContent()
      .catch(() => "")) ?? "",
  ).not.toContain("Log in to Eventrail");
  // That refusal is the one CSP report this story expects.
  cspViolations.length = 0;
});
