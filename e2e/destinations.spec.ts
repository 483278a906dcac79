import { expect, test } from "./fixtures";
import { api, createSource, sendBatch } from "./api";
import { isPhone } from "./checks";
import { shot } from "./shot";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("configure a Webhooks destination with two URLs, a header and a secret in the browser", async ({ page }) => {
  // The story runs at desktop and at phone width (project "phone"): its source is its own.
  const sourceName = `Web app ${test.info().project.name}`;
  const source = await createSource(page, sourceName);

  // Through the navigation: on a phone it is behind the "Menu" button.
  await page.goto("/sources");
  if (isPhone(page)) await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Destinations" }).click();
  await expect(page.getByRole("heading", { name: "Destinations", exact: true })).toBeVisible();
  await page.goto("/destinations/new");
  await expect(page.getByRole("heading", { name: "New Webhooks destination", exact: true })).toBeVisible();

  // Nothing filled in: the shared schema's errors appear inline, nothing is sent, focus goes to the first.
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page.getByText("Enter a name")).toBeVisible();
  await expect(page.getByText("Enter a URL")).toBeVisible();
  await expect(page.getByLabel("Name", { exact: true })).toBeFocused();
  await expect(page.getByLabel("Name", { exact: true })).toHaveAccessibleDescription("Enter a name");

  await page.getByLabel("Name", { exact: true }).fill("Orders service");
  await page.getByLabel("URL 1", { exact: true }).fill("not a url");
  // A new row takes focus: the next keystrokes land in it, not in the field after the button.
  await page.getByRole("button", { name: "+ Add URL" }).click();
  await expect(page.getByLabel("URL 2", { exact: true })).toBeFocused();
  await page.keyboard.type("ftp://files.example.com/hook");
  await expect(page.getByLabel("URL 2", { exact: true })).toHaveValue("ftp://files.example.com/hook");
  await page.getByRole("button", { name: "+ Add header" }).click();
  await expect(page.getByLabel("Header 1 name", { exact: true })).toBeFocused();
  await page.keyboard.type("Content-Type");
  await page.keyboard.press("Tab");
  await page.keyboard.type("text/plain");
  await expect(page.getByLabel("Header 1 value", { exact: true })).toHaveValue("text/plain");
  await page.getByLabel("Retry window (minutes)", { exact: true }).fill("0");
  await page.getByRole("button", { name: "Create destination" }).click();

  await expect(page.getByText("4 fields need attention")).toBeVisible();
  await expect(page.getByLabel("URL 1", { exact: true })).toBeFocused();
  await expect(page.getByLabel("Retry window (minutes)", { exact: true })).toHaveAccessibleDescription("At least 1 minute");
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
  // The copy button keeps its label on one line, at any width.
  const copy = await page.getByRole("button", { name: "Copy shared secret" }).boundingBox();
  expect(copy!.height).toBeLessThan(40);
  await page.getByRole("button", { name: "Copy shared secret" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  // Standard Webhooks signing: ticking it generates a whsec_ secret the shared schema accepts.
  await page.getByRole("checkbox", { name: /Standard Webhooks signatures/ }).check();
  const standardSecret = await page.getByLabel("Signing secret", { exact: true }).inputValue();
  expect(standardSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

  // With several URLs, the delivery mode says in place what Any URL means.
  await expect(page.getByRole("note").filter({ hasText: "With Any URL" })).toContainText("a URL that is down at that moment misses it");
  await page.getByRole("radio", { name: /Every URL/ }).check();
  await expect(page.getByText("With Every URL, each of the 2 URLs gets every event")).toBeVisible();

  // Saving with no source asks first (such a destination receives nothing); going back shows why in place.
  await page.getByRole("button", { name: "Create destination" }).click();
  const noSource = page.getByRole("dialog", { name: "Save without a source?" });
  await noSource.getByRole("button", { name: "Cancel" }).click();
  await expect(noSource).toBeHidden();
  await expect(page.getByText("No source is checked: this destination will receive no calls")).toBeVisible();
  await page.getByRole("checkbox", { name: sourceName }).check();
  await expect(page.getByText("No source is checked")).toHaveCount(0);

  // A filter: no page calls, no Heartbeat events; the preview counts the source's recent calls.
  await sendBatch(page, source.writeKey, [
    { type: "track", userId: "f", event: "Order Completed" },
    { type: "track", userId: "f", event: "Heartbeat" },
    { type: "page", userId: "f", name: "Home" },
  ]);
  await page.getByRole("checkbox", { name: "page", exact: true }).uncheck();
  await page.getByRole("radio", { name: "All events except these" }).check();
  await page.getByLabel("Events to leave out").fill("Heartbeat");
  await expect(page.getByTestId("filter-preview")).toHaveText("1 of the last 3 calls of its sources would be sent here.");
  await page.getByRole("button", { name: "Create destination" }).click();

  // Created: the new destination's page, with focus on its heading (not lost with the form).
  await expect(page.getByRole("heading", { name: "Orders service", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Orders service", exact: true })).toBeFocused();
  const id = page.url().split("/destinations/")[1];
  const stored = await api(page, "GET", `/api/destinations/${id}`);
  expect(stored).toMatchObject({
    name: "Orders service",
    urls: ["https://orders.example.com/webhooks", "https://backup.example.com/webhooks"],
    // Write-only: whether each value is set and, when long enough, its last 4 characters.
    headers: [{ name: "X-Api-Key", value: { set: true, last4: null } }],
    sharedSecret: { set: true, last4: secret.slice(-4) },
    standardWebhooks: true,
    standardSecret: { set: true, last4: standardSecret.slice(-4) },
    mode: "every",
    retryWindowMinutes: 90,
    enabled: true,
    sourceIds: [source.id],
    filter: { types: ["track", "identify", "screen", "group", "alias"], events: { mode: "exclude", names: ["Heartbeat"] } },
  });
  await expect(page.locator("dl").getByText("track, identify, screen, group and alias calls; track events except Heartbeat")).toBeVisible();
  await expect(page.locator("dl").getByText("https://backup.example.com/webhooks")).toBeVisible();
  // Each URL also has its health line (no attempts yet).
  await expect(page.getByRole("list", { name: "Endpoint health" }).getByText("https://backup.example.com/webhooks")).toBeVisible();
  // The page shows that the values are set; revealing one is a click (and its own API call).
  await expect(page.getByRole("note", { name: "Shared secret" })).toHaveText(`set · ••••${secret.slice(-4)}`);
  await page.getByRole("button", { name: "Reveal shared secret" }).click();
  await expect(page.getByRole("note", { name: "Shared secret" })).toHaveText(secret);
  await page.getByRole("button", { name: "Hide shared secret" }).click();
  await expect(page.getByRole("note", { name: "X-Api-Key value" })).toHaveText("set");
  await page.getByRole("button", { name: "Reveal x-api-key value" }).click();
  await expect(page.getByRole("note", { name: "X-Api-Key value" })).toHaveText("key-123");
  await shot(page, "destination");

  // Edit: a duplicate URL is refused where it sits — shown together with any other error, not one at a time.
  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("URL 2", { exact: true }).fill("https://orders.example.com/webhooks");
  await page.getByLabel("Retry window (minutes)", { exact: true }).fill("1.5");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("This URL is already listed")).toBeVisible();
  await expect(page.getByText("Whole minutes")).toBeVisible();
  await expect(page.getByText("2 fields need attention")).toBeVisible();
  await page.getByLabel("Retry window (minutes)", { exact: true }).fill("90");
  await expect(page.getByText("Whole minutes")).toHaveCount(0);
  await expect(page.getByText("This URL is already listed")).toBeVisible();
  await page.getByRole("button", { name: "Remove URL 2" }).click();
  await page.getByRole("switch", { name: "Enabled" }).click();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { name: "Orders service", exact: true })).toBeVisible();
  expect(await api(page, "GET", `/api/destinations/${id}`)).toMatchObject({
    urls: ["https://orders.example.com/webhooks"],
    enabled: false,
  });
  // Saving the form kept the secrets and the header value it never saw.
  expect((await api(page, "POST", `/api/destinations/${id}/reveal`, { secret: "sharedSecret" })).value).toBe(secret);
  expect((await api(page, "POST", `/api/destinations/${id}/reveal`, { header: "X-Api-Key" })).value).toBe("key-123");

  // Replacing the shared secret in the form: the stored one shows as set, Replace types a new one.
  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await expect(page.getByRole("note", { name: "Shared secret" })).toHaveText(`set · ••••${secret.slice(-4)}`);
  await page.getByRole("button", { name: "Replace shared secret" }).click();
  await page.getByLabel("Shared secret", { exact: true }).fill(" padded");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("The shared secret cannot start or end with a space or line break")).toBeVisible();
  await page.getByLabel("Shared secret", { exact: true }).fill("a-brand-new-secret-value");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { name: "Orders service", exact: true })).toBeVisible();
  expect((await api(page, "POST", `/api/destinations/${id}/reveal`, { secret: "sharedSecret" })).value).toBe("a-brand-new-secret-value");

  // The list shows it with its state, URL and connected source.
  await page.goto("/destinations");
  const row = page.getByRole("row", { name: /Orders service/ });
  await expect(row.getByText("Disabled")).toBeVisible();
  await expect(row.getByText("https://orders.example.com/webhooks")).toBeVisible();
  await expect(row.getByText(sourceName)).toBeVisible();
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
  await expect(page.getByRole("heading", { name: "Destinations", exact: true })).toBeFocused();
});
