import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { shot } from "./shot";

// Backfill (docs/routing.md#backfill): a destination created after its source's calls were stored is
// sent them from its page: count them (the dry run), start, and watch the progress reach the end.
test("backfill a new destination from its page: count, start, progress to done", async ({ page }) => {
  const sourceName = `Shop history ${test.info().project.name}`;
  const source = await createSource(page, sourceName);
  await sendBatch(
    page,
    source.writeKey,
    Array.from({ length: 30 }, (_, i) => ({ type: "track", userId: `h${i % 3}`, event: i % 3 === 0 ? "Heartbeat" : "Order Completed" })),
  );
  const bin = await createCaptureBin(page, { name: "Backfill receiver" });
  // Created after the calls: routing made it no deliveries, so only a backfill sends it these.
  const destination = await api(page, "POST", "/api/destinations", {
    name: "Late orders",
    urls: [bin.url],
    sourceIds: [source.id],
    filter: { types: ["track"], events: { mode: "exclude", names: ["Heartbeat"] } },
  });
  await page.goto(`/destinations/${destination.id}`);

  const panel = page.getByRole("form", { name: "Start a backfill" });
  await expect(panel.getByRole("checkbox", { name: sourceName })).toBeChecked();
  await panel.getByRole("button", { name: "Count calls" }).click();
  // The destination's filter applies: 20 of the 30 calls are not heartbeats.
  await expect(panel.getByRole("status")).toHaveText("20 calls would be sent.");
  await shot(page, "destination-backfill-count");
  await panel.getByRole("button", { name: "Send 20 calls" }).click();

  const backfills = page.getByRole("list", { name: "Backfills" });
  await expect(backfills.getByTestId("backfill-progress")).toHaveText("20 / 20 sent");
  await expect(backfills.getByText("finished", { exact: true })).toBeVisible();
  await expect(backfills.getByRole("progressbar", { name: "Backfill progress" })).toHaveAttribute("aria-valuenow", "20");
  await shot(page, "destination-backfill-done");

  // Its attempts are in the log, filtered by the backfill.
  await backfills.getByRole("link", { name: "See its attempts" }).click();
  await expect(page.getByRole("button", { name: "Remove the filter backfill" })).toBeVisible();
  const [b] = (await api(page, "GET", `/api/destinations/${destination.id}/backfills`)).backfills;
  const log = await api(page, "GET", `/api/attempts?backfillId=${b.id}&limit=200`);
  expect(log.attempts).toHaveLength(20);
  await api(page, "DELETE", `/api/destinations/${destination.id}`);
});
