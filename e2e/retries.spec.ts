import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { shot } from "./shot";

/**
 * The e2e worker runs with a short retry base (global setup), and the destination's retry window is
 * its minimum (1 minute), so a delivery that keeps getting 500 ends `failed` within the story.
 */
test("a destination answered 500 retries, fails, and succeeds on replay once the endpoint answers 200", async ({ page }) => {
  test.setTimeout(240_000);
  // Beside the other stories (playwright.config.ts "retries"): the endpoint here fails on purpose, and
  // must not open a success-rate alert that the alert story's list, or another story's page, would show.
  await api(page, "PUT", "/api/alerts/settings", { successRatePercent: 0 });
  const source = await createSource(page, "Retry story source");
  const bin = await createCaptureBin(page, { name: "flaky endpoint", responseStatus: 500 });
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Flaky endpoint",
    urls: [bin.url],
    headers: [],
    enabled: true,
    sourceIds: [source.id],
    retryWindowMinutes: 1,
  });
  const messageId = `retry-${Date.now().toString(36)}`;
  await sendBatch(page, source.writeKey, [{ type: "track", userId: "u-retry", event: "Payment Failed", messageId }]);

  // Retries appear in the log, each answered 500.
  await page.goto(`/log?view=attempts&messageId=${messageId}`);
  const rows = page.getByRole("table", { name: "Attempts" }).getByRole("row");
  // Header + at least 3 attempts (the list refreshes every few seconds, so it may jump past 3).
  await expect.poll(() => rows.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(4);
  await expect(rows.nth(1).getByText("500", { exact: true })).toBeVisible();
  await expect(rows.nth(1).getByText("Retrying")).toBeVisible();
  await shot(page, "log-retries");

  // The retry window (1 minute) runs out while the endpoint still answers 500: the delivery fails.
  await page.goto(`/log?view=attempts&messageId=${messageId}&outcome=failed`);
  await expect(rows).toHaveCount(2, { timeout: 120_000 });
  await rows.nth(1).click();
  const panel = page.getByRole("complementary", { name: "Attempt detail" });
  await expect(panel.getByText("failed", { exact: true })).toBeVisible();

  // The endpoint is fixed: the capture URL now answers 200.
  await page.goto(`/capture/${bin.id}`);
  await expect(page.getByRole("list", { name: "Captured requests" }).getByRole("listitem").first()).toBeVisible();
  await page.getByLabel("Response status").fill("200");
  await page.getByRole("button", { name: "Save response settings" }).click();
  await expect(page.getByText("Responds 200", { exact: true })).toBeVisible();

  // Replay every failed delivery matching the filter, after seeing how many that is.
  await page.goto(`/log?view=attempts&messageId=${messageId}&outcome=failed`);
  await expect(rows).toHaveCount(2);
  await page.getByRole("button", { name: "Replay failed…" }).click();
  const dialog = page.getByRole("dialog", { name: "Replay failed deliveries" });
  await expect(dialog.getByTestId("replay-count")).toHaveText("1");
  await dialog.getByRole("button", { name: "Replay 1" }).click();
  await expect(page.getByText("Replaying 1 delivery")).toBeVisible();

  // The replayed delivery succeeds: a 200 attempt with outcome success, the message delivered.
  await page.goto(`/log?view=attempts&messageId=${messageId}&outcome=success`);
  await expect(rows).toHaveCount(2, { timeout: 30_000 });
  await expect(rows.nth(1).getByText("200", { exact: true })).toBeVisible();
  await rows.nth(1).click();
  await expect(page.getByRole("complementary", { name: "Attempt detail" }).getByText("delivered", { exact: true })).toBeVisible();
  const chain = page
    .getByRole("complementary", { name: "Attempt detail" })
    .getByRole("region", { name: "Attempt chain" })
    .getByRole("button", { name: /^#\d+/ });
  expect(await chain.count()).toBeGreaterThanOrEqual(4);
  // The replay restarted the numbering: it sits after a divider, not mixed into the retries.
  await expect(page.getByRole("complementary", { name: "Attempt detail" }).getByText(/^Replay 1 · /)).toBeVisible();

  // The overview counts them: retries and the success for this destination.
  await page.goto(`/overview?range=1h&destination=${dest.id}`);
  await expect(page.getByRole("heading", { name: "Delivery overview", exact: true })).toBeVisible();
  await expect(page.getByLabel("Attempts", { exact: true })).not.toHaveText("0");
  // Per event as well as per attempt: the retried message is one event that needed more than one attempt.
  await expect(page.getByLabel("Events retried", { exact: true })).not.toHaveText("0");
  await expect(page.getByLabel("Events", { exact: true })).not.toHaveText("0");
  await expect(page.getByRole("img", { name: /^Bar chart of attempts by outcome/ })).toBeVisible();
  // What failed and why: the 500s grouped, with a link to exactly those attempts.
  const failures = page.getByRole("list", { name: "Failures by reason" }).getByRole("listitem").filter({ hasText: "Flaky endpoint" });
  await expect(failures.filter({ hasText: "500 Internal Server Error" })).toHaveCount(1);
  await expect(failures.getByRole("link", { name: "View in the log" })).toHaveAttribute("href", /status=500/);
  // Its message was delivered by the replay since: nothing left to replay, and the group says so.
  await expect(failures.getByTestId("failure-standing")).toContainText("1 delivered since");
  await expect(failures.getByRole("button", { name: /^Replay \d+ failed…$/ })).toHaveCount(0);
  await shot(page, "overview");
});
