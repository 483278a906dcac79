import { expect, test } from "@playwright/test";
import { api, createSource } from "./api";
import { shot } from "./shot";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("configure a Webhooks destination with two URLs, a header and a secret in the browser", async ({ page }) => {
  const source = await createSource(page, "Web app");

  await page.goto("/destinations");
  await expect(page.getByRole("heading", { name: "Destinations", exact: true })).toBeVisible();
  await page.goto("/destinations/new");
  await expect(page.getByRole("heading", { name: "New Webhooks destination", exact: true })).toBeVisible();

  // Nothing filled in: the shared schema's errors appear inline, nothing is sent.
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page.getByText("Enter a name")).toBeVisible();
  await expect(page.getByText("Enter a URL")).toBeVisible();

  await page.getByLabel("Name", { exact: true }).fill("Orders service");
  await page.getByLabel("URL 1", { exact: true }).fill("not a url");
  await page.getByRole("button", { name: "+ Add URL" }).click();
  await page.getByLabel("URL 2", { exact: true }).fill("ftp://files.example.com/hook");
  await page.getByRole("button", { name: "+ Add header" }).click();
  await page.getByLabel("Header 1 name", { exact: true }).fill("Content-Type");
  await page.getByLabel("Header 1 value", { exact: true }).fill("text/plain");
  await page.getByLabel("Retry window (minutes)", { exact: true }).fill("0");
  await page.getByRole("button", { name: "Create destination" }).click();

  await expect(page.getByText("4 fields need attention")).toBeVisible();
  await expect(page.getByLabel("URL 1", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("URL 2", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Enter a full URL starting with http:// or https://")).toHaveCount(2);
  await expect(page.getByText("Eventrail sets this header itself; it cannot be overridden")).toBeVisible();
  await expect(page.getByText("At least 1 minute")).toBeVisible();
  await shot(page, "destination-form");

  // Fixing a field clears its error as you type.
  await page.getByLabel("URL 1", { exact: true }).fill("https://orders.example.com/webhooks");
  await expect(page.getByText("Enter a full URL starting with http:// or https://")).toHaveCount(1);
  await page.getByLabel("URL 2", { exact: true }).fill("https://backup.example.com/webhooks");
  await page.getByLabel("Header 1 name", { exact: true }).fill("X-Api-Key");
  await page.getByLabel("Header 1 value", { exact: true }).fill("key-123");
  await page.getByLabel("Retry window (minutes)", { exact: true }).fill("90");
  await expect(page.getByText("Retries for 1 hour 30 minutes after the first attempt.")).toBeVisible();

  // A third URL row can be added and removed again.
  await page.getByRole("button", { name: "+ Add URL" }).click();
  await page.getByRole("button", { name: "Remove URL 3" }).click();
  await expect(page.getByLabel("URL 3", { exact: true })).toHaveCount(0);

  await page.getByRole("button", { name: "Generate shared secret" }).click();
  const secret = await page.getByLabel("Shared secret", { exact: true }).inputValue();
  expect(secret).toMatch(/^[0-9a-f]{48}$/);
  await expect(page.getByLabel("Shared secret", { exact: true })).toHaveAttribute("type", "text");
  await page.getByRole("button", { name: "Hide shared secret" }).click();
  await expect(page.getByLabel("Shared secret", { exact: true })).toHaveAttribute("type", "password");
  await page.getByRole("button", { name: "Copy shared secret" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  // Standard Webhooks signing: ticking it generates a whsec_ secret the shared schema accepts.
  await page.getByRole("checkbox", { name: /Standard Webhooks signatures/ }).check();
  const standardSecret = await page.getByLabel("Signing secret", { exact: true }).inputValue();
  expect(standardSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

  await page.getByRole("radio", { name: /Every URL/ }).check();
  await page.getByRole("checkbox", { name: "Web app" }).check();
  await page.getByRole("button", { name: "Create destination" }).click();

  await expect(page.getByRole("heading", { name: "Orders service", exact: true })).toBeVisible();
  const id = page.url().split("/destinations/")[1];
  const stored = await api(page, "GET", `/api/destinations/${id}`);
  expect(stored).toMatchObject({
    name: "Orders service",
    urls: ["https://orders.example.com/webhooks", "https://backup.example.com/webhooks"],
    headers: [{ name: "X-Api-Key", value: "key-123" }],
    sharedSecret: secret,
    standardWebhooks: true,
    standardSecret,
    mode: "every",
    retryWindowMinutes: 90,
    enabled: true,
    sourceIds: [source.id],
  });
  await expect(page.locator("dl").getByText("https://backup.example.com/webhooks")).toBeVisible();
  // Each URL also has its health line (no attempts yet).
  await expect(page.getByRole("list", { name: "Endpoint health" }).getByText("https://backup.example.com/webhooks")).toBeVisible();
  await expect(page.getByText("X-Api-Key: ••••")).toBeVisible();
  await shot(page, "destination");

  // Edit: a duplicate URL is refused where it sits; disabling is saved.
  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("URL 2", { exact: true }).fill("https://orders.example.com/webhooks");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("This URL is already listed")).toBeVisible();
  await page.getByRole("button", { name: "Remove URL 2" }).click();
  await page.getByRole("switch", { name: "Enabled" }).click();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { name: "Orders service", exact: true })).toBeVisible();
  expect(await api(page, "GET", `/api/destinations/${id}`)).toMatchObject({ urls: ["https://orders.example.com/webhooks"], enabled: false });

  // The list shows it with its state, URL and connected source.
  await page.goto("/destinations");
  const row = page.getByRole("row", { name: /Orders service/ });
  await expect(row.getByText("Disabled")).toBeVisible();
  await expect(row.getByText("https://orders.example.com/webhooks")).toBeVisible();
  await expect(row.getByText("Web app")).toBeVisible();
  await shot(page, "destinations");

  // Delete asks first; cancelling keeps it, confirming removes it.
  await row.getByRole("link", { name: "Orders service" }).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(page.getByRole("dialog", { name: 'Delete "Orders service"?' })).toBeVisible();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Delete destination" }).click();
  await expect(page).toHaveURL(/\/destinations$/);
  await expect(page.getByRole("row", { name: /Orders service/ })).toHaveCount(0);
});
