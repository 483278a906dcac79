import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch, slowPageData } from "./api";
import { shot } from "./shot";

test("send events through the Tracking API and find their attempts in the request log (every attempt)", async ({ page }) => {
  test.setTimeout(120_000);
  const source = await createSource(page, "Checkout backend");
  const bin = await createCaptureBin(page, { name: "log story" });
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Log story hook",
    urls: [bin.url],
    headers: [],
    enabled: true,
    sourceIds: [source.id],
  });
  const run = Date.now().toString(36);
  const ids = { track: `log-track-${run}`, identify: `log-identify-${run}`, page: `log-page-${run}` };
  await sendBatch(page, source.writeKey, [
    { type: "track", userId: `buyer-${run}`, event: "Checkout Started", messageId: ids.track, properties: { cart: 3 } },
    { type: "identify", userId: `buyer-${run}`, traits: { plan: "pro" }, messageId: ids.identify },
    { type: "page", userId: `buyer-${run}`, name: "Pricing", messageId: ids.page },
    // Rejected alone (track without event): visible in the source debugger with its reason.
    { type: "track", userId: `buyer-${run}`, messageId: `log-bad-${run}` },
  ]);

  await page.goto(`/log?view=attempts&destinationId=${dest.id}`);
  await expect(page.getByRole("heading", { name: "Request log", exact: true })).toBeVisible();
  const rows = page.getByRole("table", { name: "Attempts" }).getByRole("row");
  // Header row + one attempt per delivered message (the log tails the newest page).
  await expect(rows).toHaveCount(4, { timeout: 30_000 });
  await expect(page.getByLabel("Destination").first()).toHaveValue(dest.id);

  // Filter by event type: kept in the URL and survives a reload.
  await page.getByLabel("Event type").selectOption("track");
  await expect(page).toHaveURL(/type=track/);
  await expect(rows).toHaveCount(2);
  await page.reload();
  await expect(page.getByLabel("Event type")).toHaveValue("track");
  await expect(rows).toHaveCount(2);

  // The log leads with the event name and a relative time, on one line.
  const trackRow = rows.nth(1);
  await expect(trackRow.getByText("Checkout Started")).toBeVisible();
  await expect(trackRow.locator("time")).toHaveText(/^(just now|\d+ s ago|\d+ min ago)$/);
  await expect(trackRow.locator("time")).toHaveAttribute("title", /\d/);

  // Text filters apply as you type (a short pause), and Enter still applies at once. A change made
  // while the last one's page is still loading builds on it: here each new URL's data is held back
  // 1 s (as a loaded server might), so the user ID applies before the cleared type has rendered.
  const undoSlow = await slowPageData(page, "/log");
  await page.getByLabel("Event type").selectOption("");
  await page.getByLabel("User ID").fill(`buyer-${run}`);
  await expect(page).toHaveURL(new RegExp(`userId=buyer-${run}`));
  await expect(page).not.toHaveURL(/type=/);
  await expect(rows).toHaveCount(4);
  await undoSlow();
  await page.getByLabel("User ID").fill("");
  await expect(page).not.toHaveURL(/userId=/);
  await page.getByLabel("Message ID").fill(ids.identify);
  await page.getByLabel("Message ID").press("Enter");
  await expect(page).toHaveURL(new RegExp(`messageId=${ids.identify}`));
  await expect(rows).toHaveCount(2);
  const row = rows.nth(1);
  await expect(row.getByText("200", { exact: true })).toBeVisible();
  await expect(row.getByText("Success")).toBeVisible();
  await expect(row.getByText(/^\d+ ms$|^\d+(\.\d)? s$/)).toBeVisible();
  await row.click();

  const panel = page.getByRole("complementary", { name: "Attempt detail" });
  // The drawer takes focus, titled by the event and destination (not an attempt number), and opens on
  // how the attempt ended and what the endpoint answered.
  await expect(panel.getByRole("heading", { name: "identify → Log story hook" })).toBeFocused();
  await expect(panel.getByText(/^Attempt 1 · /)).toBeVisible();
  const outcome = panel.getByRole("region", { name: "Outcome" });
  await expect(outcome.getByRole("heading", { name: "The endpoint answered 200" })).toBeVisible();
  await expect(outcome.getByLabel("The endpoint's answer, first lines")).toContainText("captured");
  const [outcomeBox, chainBox] = [await outcome.boundingBox(), await panel.getByRole("region", { name: "Attempt chain" }).boundingBox()];
  expect(outcomeBox!.y).toBeLessThan(chainBox!.y);
  // Copy as cURL: the request as sent, runnable.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await panel.getByRole("button", { name: "Copy as cURL", exact: true }).click();
  await expect(panel.getByRole("button", { name: "Copied ✓" })).toBeVisible();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`curl -X POST '${bin.url}'`);
  expect(curl).toContain("-H 'user-agent: Eventrail.io/1.0'");
  expect(curl).toContain(`--data-raw '{`);
  expect(curl).toContain(ids.identify);
  await expect(panel.getByText(`POST ${bin.url}`)).toBeVisible();
  await expect(panel.getByLabel("Duration")).toHaveText(/\d+ ms|\d+(\.\d)? s/);
  const sent = JSON.parse((await panel.getByLabel("Request body").textContent())!);
  expect(sent).toMatchObject({ type: "identify", userId: `buyer-${run}`, traits: { plan: "pro" }, messageId: ids.identify });
  await expect(panel.getByRole("table", { name: "Request headers" }).getByText("Eventrail.io/1.0")).toBeVisible();
  await expect(panel.getByRole("table", { name: "Response headers" })).toBeVisible();
  await expect(panel.getByText("delivered")).toBeVisible();
  const chain = panel.getByRole("region", { name: "Attempt chain" });
  await expect(chain.getByRole("button", { name: /^#\d+/ })).toHaveCount(1);
  await expect(chain.getByRole("heading", { name: /This message · 1 attempt$/ })).toBeVisible();
  // Each group is labelled with its destination and URL.
  await expect(chain.getByRole("region", { name: new RegExp(`Log story hook.*${bin.url.split("/c/")[1]}`) })).toBeVisible();
  await expect(page).toHaveURL(/attempt=\d+/);
  const openedRow = page.locator(`tr[data-attempt-id="${new URL(page.url()).searchParams.get("attempt")}"]`);
  await shot(page, "log");

  // Replay one message. It was delivered, so nothing is re-sent unless asked for explicitly; once
  // asked, a second attempt joins its chain, on a new delivery linked to the original.
  await panel.getByRole("button", { name: "Replay message" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByText("nothing to replay")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Replay message" })).toBeDisabled();
  await dialog.getByLabel("Also send it again where it was delivered").check();
  await dialog.getByRole("button", { name: "Replay message" }).click();
  await expect(chain.getByRole("button", { name: /^#\d+/ })).toHaveCount(2, { timeout: 30_000 });
  // The replay is set apart under its number, and the count reads right.
  await expect(chain.getByText(/^Replay 1 · /)).toBeVisible();
  await expect(chain.getByRole("heading", { name: /This message · 2 attempts$/ })).toBeVisible();
  // The confirmation closes when the replay's answer arrives, which can be after its attempt is
  // already in the chain: until then Escape belongs to the dialog (attempt-panel.tsx), not the panel.
  await expect(dialog).toBeHidden();
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  // Closed, the drawer gives focus back to the row that opened it (the replay's attempt is above it now).
  await expect(openedRow).toBeFocused();
  // "Skip to results" jumps the filters: the next Tab is the first attempt.
  await page.getByRole("link", { name: "Skip to results" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("region", { name: "Results" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(panel.getByRole("heading", { name: / → Log story hook$/ })).toBeFocused();
  await panel.getByRole("button", { name: "Close detail" }).click();
  await expect(rows.nth(1)).toBeFocused();

  // Keyset paging: 60 more track calls make the filtered log longer than one page (50).
  await sendBatch(
    page,
    source.writeKey,
    Array.from({ length: 60 }, (_, i) => ({ type: "track", userId: `bulk-${run}`, event: "Bulk Imported", messageId: `bulk-${run}-${i}` })),
  );
  await expect
    .poll(async () => (await api(page, "GET", `/api/attempts?destinationId=${dest.id}&type=track&limit=200`)).attempts.length, {
      timeout: 60_000,
    })
    .toBe(61);
  await page.goto(`/log?view=attempts&destinationId=${dest.id}&type=track`);
  await expect(page.getByText("50 attempts shown")).toBeVisible();
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(page.getByText("61 attempts shown")).toBeVisible();
  await expect(page.getByText("End of the log")).toBeVisible();
  await expect(rows).toHaveCount(62);

  // The source debugger shows the accepted calls and the rejected one with its reason.
  await page.goto(`/sources/${source.id}`);
  await expect(page.getByRole("heading", { name: /^Debugger/ })).toBeVisible();
  const calls = page.getByRole("list", { name: "Recent calls" });
  await expect(calls.getByRole("button", { name: new RegExp(`^Accepted track .*${ids.track}`) })).toBeVisible();
  const rejected = calls.getByRole("button", { name: new RegExp(`^Rejected track .*log-bad-${run}`) });
  await expect(rejected).toBeVisible();
  await rejected.click();
  await expect(page.getByText(/Reason: .*event/i)).toBeVisible();
  await shot(page, "source-debugger");
  await page.getByRole("radio", { name: /rejected/i }).click();
  await expect(calls.getByRole("button", { name: /^Accepted/ })).toHaveCount(0);

  // The client was told nothing (its batch got a 200), so the source page counts the rejection, by reason.
  await expect(page.getByTestId("rejected-count")).toHaveText("1");
  await expect(page.getByRole("list", { name: "Rejections by reason" })).toHaveText("missing field · 1");
});

test("the overview keeps a time range and a destination picked in quick succession, on a slow server", async ({ page }) => {
  const bin = await createCaptureBin(page, { name: "overview picks" });
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Overview picks hook",
    urls: [bin.url],
    headers: [],
    sourceIds: [],
  });
  await page.goto("/overview");
  // Each new URL's data is held back 1 s (as a loaded server might): the destination is picked
  // before the range's page has rendered, and must build on it.
  await slowPageData(page, "/overview");
  await page.getByRole("radio", { name: "Last 7 days" }).click();
  await page.getByLabel("Destination", { exact: true }).selectOption(dest.id);
  await expect(page).toHaveURL(new RegExp(`destination=${dest.id}`));
  await expect(page).toHaveURL(/range=7d/);
  await expect(page.getByRole("radio", { name: "Last 7 days" })).toBeChecked();
});
