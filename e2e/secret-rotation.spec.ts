import { expect, test } from "./fixtures";
import { api } from "./api";
import { expectAccessible, expectNoHorizontalOverflow, PHONE } from "./checks";

// Rotating a destination secret from its form (docs/signing.md#secret-rotation), at phone width and by keyboard.
test.use({ viewport: PHONE });

test("rotate a destination's shared secret with a grace period: the new secret is shown once, the old one counts down", async ({
  page,
}) => {
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Rotation story hooks",
    urls: ["https://example.com/hooks/orders"],
    sharedSecret: "old-shared-secret-0123456789",
  });
  await page.goto(`/destinations/${dest.id}/edit`);

  // A section a user can leave closed: opened from the keyboard.
  const section = page.locator("summary", { hasText: "Rotate a secret" });
  await section.focus();
  await page.keyboard.press("Enter");
  const rotateButton = page.getByRole("button", { name: "Rotate the shared secret" });
  await expect(rotateButton).toBeVisible();
  await rotateButton.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Rotate the shared secret?" });
  await expect(dialog).toBeVisible();
  // The grace period by arrow keys, from the default 24 hours to 7 days, then back to 1 hour.
  await dialog.getByRole("radio", { name: "24 hours" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(dialog.getByRole("radio", { name: "7 days" })).toBeChecked();
  await dialog.getByRole("radio", { name: "1 hour" }).check();
  await expect(
    dialog.getByText("X-Signature keeps the current secret's signature and X-Signature-Next carries the new one's"),
  ).toBeVisible();
  await expectAccessible(page, "secret rotation dialog");
  await dialog.getByRole("button", { name: "Rotate shared secret" }).click();
  await expect(dialog).toBeHidden();

  // Shown once, with a copy button; the old secret still signs, counted down.
  const shown = page.getByRole("status", { name: "New secret" });
  const value = (await shown.getByTestId("new-secret").textContent())!;
  expect(value).toMatch(/^[0-9a-f]{48}$/);
  await expect(shown.getByRole("button", { name: "Copy the new secret" })).toBeVisible();
  const grace = page.getByTestId("sharedSecret-grace");
  await expect(grace).toContainText("••••6789");
  await expect(grace).toContainText(/for 5\d min \d+ s/);
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "destination form after a rotation");

  // Never again: not after a reload, not in the API.
  await page.reload();
  await expect(page.getByTestId("sharedSecret-grace")).toBeVisible();
  await expect(page.getByText(value)).toHaveCount(0);
  const saved = await api(page, "GET", `/api/destinations/${dest.id}`);
  expect(JSON.stringify(saved)).not.toContain(value);
  expect(saved.previousSharedSecret).toMatchObject({ last4: "6789" });
});
