import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { expectAccessible } from "./checks";
import { shot } from "./shot";

const MINUTE = 60_000;

/**
 * Endpoint alerts (docs/alerts.md): a capture URL that answers 500 is a real failing receiver. The
 * worker judges endpoints once a minute at the real time; this story runs the same evaluation with
 * the clock moved on (16 minutes, then 5 days), as the integration test does, and checks what a
 * person sees: the alert list on the overview and a one-line notice elsewhere, then the disabled URL, then the one-click re-enable.
 */
test("a failing endpoint raises the banner, is disabled after days, and is re-enabled in one click", async ({ page }) => {
  test.setTimeout(120_000);
  // Only the failing-minutes rule here: the worker's own tick (real time) could raise a success-rate alert first.
  await api(page, "PUT", "/api/alerts/settings", { successRatePercent: 0 });
  const source = await createSource(page, "Alert story source");
  const bin = await createCaptureBin(page, { name: "broken receiver", responseStatus: 500 });
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Broken endpoint",
    urls: [bin.url],
    headers: [],
    sourceIds: [source.id],
    retryWindowMinutes: 1,
  });
  await sendBatch(page, source.writeKey, [{ type: "track", userId: "u-alert", event: "Checkout Started" }]);
  // Wait for the endpoint's own 500 in the log: the judgement reads answered attempts only, and under
  // load an `interrupted` row (a resumed job's, left out of the judgement) can be logged before it.
  await expect
    .poll(
      async () =>
        (await api(page, "GET", `/api/attempts?destinationId=${dest.id}`)).attempts.filter(
          (a: { responseStatus: number | null }) => a.responseStatus === 500,
        ).length,
      { timeout: 30_000 },
    )
    .toBeGreaterThanOrEqual(1);

  // The evaluation, in this process, against the e2e database (lib/alerts/evaluate.ts takes the clock).
  process.env.DATABASE_URL = process.env.E2E_DATABASE_URL;
  const { evaluateEndpointAlerts } = await import("../lib/alerts/evaluate");
  const { closeRuntime } = await import("../lib/platform/runtime");
  const at = (ms: number) => evaluateEndpointAlerts({ now: new Date(Date.now() + ms), destinationIds: [dest.id], smtpUrl: null });
  try {
    expect((await at(16 * MINUTE)).events.map((e) => e.kind)).toEqual(["opened"]);
    await page.goto("/overview");
    const banner = page.getByRole("region", { name: "Endpoint alerts" });
    await expect(banner).toContainText("Broken endpoint");
    await expect(banner).toContainText("failing with no success (last error: 500 Internal Server Error)");
    await expect(banner.getByRole("button", { name: /Re-enable/ })).toHaveCount(0);

    expect((await at(5 * 24 * 60 * MINUTE + MINUTE)).events.map((e) => e.kind)).toEqual(["disabled"]);
  } finally {
    await closeRuntime();
  }
  // Other pages carry one line pointing at the overview's list; dismissed, it stays away until the alerts change.
  await page.goto(`/destinations/${dest.id}`);
  const notice = page.getByRole("region", { name: "Endpoint alert notice" });
  await expect(notice).toContainText(/endpoints? needs? attention \(.*disabled\)/);
  expect((await notice.boundingBox())!.height).toBeLessThan(48);
  await expect(page.getByRole("list", { name: "Endpoint health" }).getByText("Disabled")).toBeVisible();
  await notice.getByRole("button", { name: "Dismiss the alert notice" }).click();
  await expect(notice).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(notice).toHaveCount(0);
  await page.goto("/overview");
  const banner = page.getByRole("region", { name: "Endpoint alerts" });
  await expect(banner).toContainText("disabled after failing for days");
  // The page walk rarely meets the list (no alert is open then): axe checks it here, in its loudest state.
  await expectAccessible(page, "overview with the disabled-URL alert");
  await shot(page, "alert-list-disabled");
  await banner.getByRole("button", { name: `Re-enable ${bin.url}` }).click();
  await expect(banner).toHaveCount(0);
  await page.goto(`/destinations/${dest.id}`);
  await expect(page.getByRole("list", { name: "Endpoint health" }).getByRole("button", { name: /Re-enable/ })).toHaveCount(0);
  const alerts = await api(page, "GET", "/api/alerts");
  expect(alerts.open.filter((a: { destinationId: string }) => a.destinationId === dest.id)).toEqual([]);
  expect(alerts.recent[0]).toMatchObject({ destinationId: dest.id, resolution: "reenabled" });
});
