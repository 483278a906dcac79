import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { DESKTOP, PHONE, expectAccessible, tabTo } from "./checks";
import { shot } from "./shot";

/**
 * The log by message and triage that counts right (issue 52 items 1 and 3). An endpoint answers 500:
 * two events run out of their retry window (1 minute, the e2e worker's short steps) and fail, two
 * more are still retrying. The overview says so, "Replay 2 failed…" offers and sends exactly the two
 * failed ones, and the log lists one row per message with its attempts nested in its drawer — at
 * 1440 and 390 px, by keyboard at both, with axe.
 */
test("the log lists messages with their attempts nested, and triage counts match what a replay sends", async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize(DESKTOP);
  const run = Date.now().toString(36);
  const source = await createSource(page, `Triage source ${run}`);
  const bin = await createCaptureBin(page, { name: "always 500", responseStatus: 500 });
  const name = `Triage hook ${run}`;
  const dest = await api(page, "POST", "/api/destinations", {
    name,
    urls: [bin.url],
    headers: [],
    enabled: true,
    sourceIds: [source.id],
    retryWindowMinutes: 1,
  });
  const rowsOf = async (q: string) => (await api(page, "GET", `/api/deliveries?destinationId=${dest.id}&${q}`)).deliveries as any[];

  // Two events that fail: their retry window runs out while the endpoint keeps answering 500.
  await sendBatch(page, source.writeKey, [
    { type: "track", userId: `u-${run}`, event: "Payment Failed", messageId: `fail-1-${run}` },
    { type: "track", userId: `u-${run}`, event: "Payment Failed", messageId: `fail-2-${run}` },
  ]);
  await expect.poll(async () => (await rowsOf("state=failed")).length, { timeout: 150_000 }).toBe(2);
  // Two more, still retrying.
  await sendBatch(page, source.writeKey, [
    { type: "track", userId: `u-${run}`, event: "Refund Requested", messageId: `retry-1-${run}` },
    { type: "track", userId: `u-${run}`, event: "Refund Requested", messageId: `retry-2-${run}` },
  ]);
  await expect.poll(async () => (await rowsOf("state=retrying")).length, { timeout: 30_000 }).toBe(2);

  // The overview's failure group counts attempts and messages, and says where the messages stand now.
  await page.goto(`/overview?range=1h&destination=${dest.id}`);
  const group = page.getByRole("list", { name: "Failures by reason" }).getByRole("listitem").filter({ hasText: name });
  await expect(group.getByText("4 messages", { exact: false })).toBeVisible({ timeout: 30_000 });
  await expect(group.getByTestId("failure-standing")).toContainText("Now: 2 failed · 2 still retrying");
  await expect(group.getByTestId("failure-standing")).toContainText("retried on their own, not replayed");
  await expectAccessible(page, "overview with a failure group");
  await shot(page, "overview-triage");
  // At 390 px, by keyboard, before anything is sent: the same counts, and the dialog agrees with them.
  await page.setViewportSize(PHONE);
  await expect(group.getByTestId("failure-standing")).toContainText("Now: 2 failed · 2 still retrying");
  await expectAccessible(page, "overview with a failure group on a phone");
  await shot(page, "overview-triage");
  const replayFailed = group.getByRole("button", { name: "Replay 2 failed…" });
  await tabTo(page, replayFailed);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Replay failed deliveries" });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await expect(dialog.getByTestId("replay-count")).toHaveText("2");
  await expect(dialog.getByTestId("replay-still-retrying")).toContainText("2 more are still retrying and not replayed");
  await expectAccessible(page, "replay dialog on a phone");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(replayFailed).toBeFocused();
  await page.setViewportSize(DESKTOP);
  // "Replay 2 failed…": the dialog counts what it sends and what it leaves, and the replay sends exactly that.
  await replayFailed.click();
  await expect(dialog.getByTestId("replay-count")).toHaveText("2");
  await expect(dialog.getByTestId("replay-still-retrying")).toContainText("2 more are still retrying and not replayed");
  await dialog.getByRole("button", { name: "Replay 2" }).click();
  await expect(page.getByText("Replaying 2 deliveries")).toBeVisible();
  const replayed = (await rowsOf("")).filter((r) => r.replays === 1);
  expect(replayed.map((r) => r.messageId).sort()).toEqual([`fail-1-${run}`, `fail-2-${run}`]);

  // The log, by message (its default view): four rows, one per message, not one per attempt.
  await page.goto(`/log?destinationId=${dest.id}`);
  await expect(page.getByRole("button", { name: "By message", pressed: true })).toBeVisible();
  const table = page.getByRole("table", { name: "Messages" });
  const rows = table.getByRole("row");
  await expect(rows).toHaveCount(5);
  await expect(table.getByRole("columnheader")).toHaveText(["Event", "Status", "Attempts", "Last answer", "Destination", "Received"]);
  const failedRow = rows.filter({ hasText: "Payment Failed" }).first();
  await expect(failedRow).toContainText("replayed once");
  await expect(failedRow).toContainText("500 Internal Server Error");
  await expect(rows.filter({ hasText: "Refund Requested" }).first()).toContainText("Retrying");
  // The columns are explained.
  await page.getByText("What the columns mean").click();
  await expect(page.getByText(/How the message stands at that destination now/)).toBeVisible();
  await expectAccessible(page, "log by message");
  await shot(page, "log-by-message");

  // Its attempt chain is in the drawer, titled by the event, the replay set apart.
  await failedRow.click();
  const panel = page.getByRole("complementary", { name: "Message detail" });
  await expect(panel.getByRole("heading", { name: `Payment Failed → ${name}` })).toBeFocused();
  const chain = panel.getByRole("region", { name: "Attempt chain" });
  await expect.poll(() => chain.getByRole("button", { name: /^#\d+/ }).count()).toBeGreaterThanOrEqual(3);
  await expect(chain.getByText(/^Replay 1 · /)).toBeVisible();
  await expect(panel.getByRole("region", { name: "Outcome" })).toContainText("500");
  await expectAccessible(page, "log by message, drawer open");
  await shot(page, "log-message-drawer");
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);

  // The flat view is one toggle away: every attempt, more rows than messages.
  await page.getByRole("button", { name: "Every attempt" }).click();
  await expect(page).toHaveURL(/view=attempts/);
  await expect(page.getByRole("button", { name: "Every attempt", pressed: true })).toBeVisible();
  await expect.poll(() => page.getByRole("table", { name: "Attempts" }).getByRole("row").count()).toBeGreaterThan(5);
  await page.getByRole("button", { name: "By message" }).click();
  await expect(rows).toHaveCount(5);

  // By keyboard: skip to the results, open the first row, close it, focus back on the row.
  await page.getByRole("link", { name: "Skip to results" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("region", { name: "Results" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(panel.getByRole("heading", { name: new RegExp(` → ${name}$`) })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(rows.nth(1)).toBeFocused();
  // The time buttons say which one is on.
  const hour = page.getByRole("button", { name: /Last hour/ });
  await expect(hour).toHaveAttribute("aria-pressed", "false");
  await hour.click();
  await expect(hour).toHaveAttribute("aria-pressed", "true");
  // Every filter has a visible label.
  await expect(page.locator("label", { hasText: "User ID" })).toBeVisible();

  // On a phone: a list of the same messages, the drawer over it.
  await page.setViewportSize(PHONE);
  await page.goto(`/log?destinationId=${dest.id}`);
  const list = page.getByRole("list", { name: "Messages" });
  await expect(list.getByRole("listitem")).toHaveCount(4);
  // The last answer in words, on a phone too.
  await expect(list.getByRole("listitem").filter({ hasText: "Payment Failed" }).first()).toContainText("500 Internal Server Error");
  await expectAccessible(page, "log by message on a phone");
  await shot(page, "log-by-message");
  // By keyboard on a phone: the filters behind their button, a time button that says it is on, labelled fields.
  const filters = page.getByRole("button", { name: /^Filters/ });
  await tabTo(page, filters);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Hide filters" })).toHaveAttribute("aria-expanded", "true");
  await expect(page.locator("label", { hasText: "User ID" })).toBeVisible();
  const phoneHour = page.getByRole("button", { name: /Last hour/ });
  await tabTo(page, phoneHour);
  await page.keyboard.press("Enter");
  await expect(phoneHour).toHaveAttribute("aria-pressed", "true");
  await expect(list.getByRole("listitem")).toHaveCount(4);
  await expectAccessible(page, "log filters open on a phone");
  await shot(page, "log-filters-open");
  // Then a message, opened by keyboard: its chain in the drawer.
  const refund = list.getByRole("button").filter({ hasText: "Refund Requested" }).first();
  await tabTo(page, refund);
  await page.keyboard.press("Enter");
  await expect(panel.getByRole("heading", { name: `Refund Requested → ${name}` })).toBeFocused();
  await expect(panel.getByText("Retrying", { exact: true }).first()).toBeVisible();
  await expect(panel.getByRole("region", { name: "Attempt chain" }).getByRole("button", { name: /^#\d+/ }).first()).toBeVisible();
  await shot(page, "log-message-drawer", { nav: false });
  await page.keyboard.press("Escape");
  await expect(refund).toBeFocused();
});
