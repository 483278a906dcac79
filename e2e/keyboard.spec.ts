import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { api } from "./api";
import { tabTo } from "./checks";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

/**
 * The main story with the keyboard alone (issue 38): source → destination with 2 URLs, a header and
 * a secret → test-send to a new capture URL → the capture → the log → the attempt → copy as cURL →
 * replay; after each step, focus is where the next keystroke belongs. Setup (the first owner) is
 * the foundation story's; this one starts logged in as that owner.
 */
test("walk the main story with the keyboard alone, focus following each step", async ({ page }) => {
  test.setTimeout(150_000);
  const run = Date.now().toString(36);
  const sourceName = `Keyboard source ${run}`;
  const destName = `Keyboard hook ${run}`;
  const marker = `kbw-${run}`;

  await page.goto("/overview");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  // A source: from the navigation, "New source" puts focus in its name; once created, on it in the list.
  await tabTo(page, nav(page, "Sources"));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Sources", exact: true })).toBeFocused();
  await tabTo(page, page.getByRole("button", { name: "New source" }));
  await page.keyboard.press("Enter");
  await expect(page.getByLabel("Source name")).toBeFocused();
  await page.keyboard.type(sourceName);
  await page.keyboard.press("Enter");
  await expect(page.locator("#main").getByRole("link", { name: new RegExp(sourceName) })).toBeFocused();

  // A destination with two URLs, a header and a shared secret, connected to the source.
  await tabTo(page, nav(page, "Destinations"), { back: true });
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Destinations", exact: true })).toBeFocused();
  await tabTo(
    page,
    page.locator("#main").getByRole("link", { name: /^(New destination|Create a destination|Create your first destination)$/ }),
  );
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "New Webhooks destination", exact: true })).toBeFocused();
  await tabTo(page, page.getByLabel("Name", { exact: true }));
  await page.keyboard.type(destName);
  await tabTo(page, page.getByLabel("URL 1", { exact: true }));
  await page.keyboard.type("https://orders.example.com/webhooks");
  await tabTo(page, page.getByRole("button", { name: "+ Add URL" }));
  await page.keyboard.press("Enter");
  await expect(page.getByLabel("URL 2", { exact: true })).toBeFocused();
  await page.keyboard.type("https://backup.example.com/webhooks");
  await tabTo(page, page.getByRole("button", { name: "+ Add header" }));
  await page.keyboard.press("Enter");
  await expect(page.getByLabel("Header 1 name", { exact: true })).toBeFocused();
  await page.keyboard.type("X-Api-Key");
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Header 1 value", { exact: true })).toBeFocused();
  await page.keyboard.type("key-123");
  await tabTo(page, page.getByLabel("Shared secret", { exact: true }));
  await page.keyboard.type("keyboard-walk-secret");
  const sourceBox = page.getByRole("checkbox", { name: sourceName });
  await tabTo(page, sourceBox);
  await page.keyboard.press("Space");
  await expect(sourceBox).toBeChecked();
  await tabTo(page, page.getByRole("button", { name: "Create destination" }));
  await page.keyboard.press("Enter");
  // Created: its page, with focus on its heading.
  await expect(page.getByRole("heading", { name: destName, exact: true })).toBeFocused();
  const destinationId = page.url().split("/destinations/")[1];
  const stored = await api(page, "GET", `/api/destinations/${destinationId}`);
  expect(stored).toMatchObject({
    urls: ["https://orders.example.com/webhooks", "https://backup.example.com/webhooks"],
    headers: [{ name: "X-Api-Key", value: { set: true } }],
    sharedSecret: { set: true },
  });

  // Test-send a track call carrying a marker, to a new capture URL: focus goes to the picker, then to the result.
  const payload = page.getByLabel("Payload (JSON)");
  await tabTo(page, payload);
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type(
    JSON.stringify({ type: "track", event: "Keyboard Walk", userId: `kb-${run}`, properties: { walk: { marker } } }),
  );
  await tabTo(page, page.getByRole("radio", { name: "This destination's URLs" }));
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("radio", { name: "A capture URL" })).toBeChecked();
  await tabTo(page, page.getByRole("button", { name: "New capture URL" }));
  await page.keyboard.press("Enter");
  const picker = page.getByLabel("Capture URL", { exact: true });
  await expect(picker).toBeFocused();
  const binUrl = await picker.inputValue();
  expect(binUrl).toMatch(/\/c\/[a-z0-9]{24}$/);
  await tabTo(page, page.getByRole("button", { name: "Send test track" }));
  await page.keyboard.press("Enter");
  const result = page.getByRole("region", { name: "Test result" });
  await expect(result).toBeFocused();
  // The status badge is the first "200": a folded response header (a Content-Length of 200) can read the same.
  await expect(result.getByText("200", { exact: true }).first()).toBeVisible();

  // The capture: it arrived, signed as the destination signs.
  await tabTo(page, page.getByRole("link", { name: "Watch it arrive →" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
  await expect(page.getByTestId("capture-url")).toHaveText(binUrl);
  const captured = page.getByRole("list", { name: "Captured requests" }).getByRole("listitem");
  await expect(captured).toHaveCount(1);
  await expect(page.getByRole("region", { name: "Request details" }).getByLabel("Request body")).toContainText(marker);
  // Verified at once against the destination that sent it, nothing picked (issue 52 item 2).
  await expect(page.getByRole("region", { name: "Request details" }).getByText(`Checked against ${destName}, which sent it`)).toBeVisible();
  await expect(page.getByRole("region", { name: "Request details" }).getByLabel("X-Signature verified")).toBeVisible();

  // The log: search the payloads for the marker, skip to the results, open the attempt.
  await tabTo(page, nav(page, "Request log"), { back: true });
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Request log", exact: true })).toBeFocused();
  const search = page.getByLabel("Search payloads");
  await tabTo(page, search);
  await page.keyboard.type(marker);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`q=${marker}`));
  // By message (the log's default view): the one message at its destination.
  const rows = page.getByRole("table", { name: "Messages" }).getByRole("row");
  await expect(rows).toHaveCount(2);
  await tabTo(page, page.getByRole("link", { name: "Skip to results" }), { back: true });
  await page.keyboard.press("Enter");
  await expect(page.getByRole("region", { name: "Results" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  // The drawer is titled by the event and its destination, and opens on its latest attempt.
  const panel = page.getByRole("complementary", { name: "Message detail" });
  await expect(panel.getByRole("heading", { name: / → / })).toBeFocused();
  await expect(panel.getByRole("region", { name: "Outcome" }).getByRole("heading", { name: "The endpoint answered 200" })).toBeVisible();
  await expect(page).toHaveURL(/message=[0-9a-f-]+\.[0-9a-f-]+/);
  const openedRow = page.locator(`tr[data-row-key="${new URL(page.url()).searchParams.get("message")}"]`);

  // Copy as cURL: focus stays on the button, which says it copied.
  await tabTo(page, panel.getByRole("button", { name: "Copy as cURL", exact: true }));
  await page.keyboard.press("Enter");
  await expect(panel.getByRole("button", { name: "Copied ✓" })).toBeFocused();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`curl -X POST '${binUrl}'`);
  expect(curl).toContain(marker);

  // Replay: the dialog takes focus (on Cancel); the delivered test is sent again only when asked, and
  // only where the test went (the capture URL, not the destination's URLs).
  const chain = panel.getByRole("region", { name: "Attempt chain" });
  const replayButton = chain.getByRole("button", { name: "Replay message" });
  await tabTo(page, replayButton);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Replay this message?" });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  // Back past "keep its user's order" (docs/webhooks.md#ordering) to "send it again where it was delivered".
  const again = dialog.getByLabel("Also send it again where it was delivered");
  await tabTo(page, again, { back: true, max: 3 });
  await page.keyboard.press("Space");
  await expect(again).toBeChecked();
  await tabTo(page, dialog.getByRole("button", { name: "Replay message" }));
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  // Closed, focus is on the replay's answer (the button that opened it is disabled while the replay is delivered).
  await expect(chain.getByRole("status")).toBeFocused();
  await expect(chain.getByRole("status")).toContainText(/replay/i);
  await expect(chain.getByRole("button", { name: /^#\d+/ })).toHaveCount(2, { timeout: 30_000 });
  await expect(chain.getByText(/^Replay 1 · /)).toBeVisible();
  await expect(chain.getByRole("status")).toHaveText("Replayed: 1 destination delivered.");
  const attempts = (await api(page, "GET", `/api/attempts?destinationId=${destinationId}`)).attempts as { url: string }[];
  expect(attempts.map((a) => a.url)).toEqual([binUrl, binUrl]);

  // Escape closes the drawer and gives focus back to the row that opened it (the replay's attempt is above it now).
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(openedRow).toBeFocused();
});
