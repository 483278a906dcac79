import { expect, test } from "./fixtures";
import { api, createCaptureBin, createSource, sendBatch } from "./api";
import { DESKTOP } from "./checks";

/**
 * The main pages arrive with their data (issue 52 item 8, docs/dashboard.md#first-render): the
 * server fetches each page's first data as it renders, so the HTML alone — read with JavaScript off
 * — already shows the destinations, a destination, the sources, the log's first page and the capture
 * URLs, with no "Loading…" left where they go. With JavaScript on, in a time zone and language other
 * than the server's, the page then hydrates over that HTML without a mismatch.
 */
test("the main pages' first HTML holds their data, and hydrates over it without a mismatch", async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const run = Date.now().toString(36);
  const source = await createSource(page, `First render source ${run}`);
  const bin = await createCaptureBin(page, { name: `First render bin ${run}` });
  const name = `First render hook ${run}`;
  const dest = await api(page, "POST", "/api/destinations", {
    name,
    urls: [bin.url],
    headers: [],
    enabled: true,
    sourceIds: [source.id],
  });
  const event = `First Render ${run}`;
  await sendBatch(page, source.writeKey, [{ type: "track", userId: `u-${run}`, event, messageId: `first-render-${run}` }]);
  // Delivered: the log has its row and the capture URL caught the request.
  await expect
    .poll(async () => (await api(page, "GET", `/api/deliveries?destinationId=${dest.id}&state=delivered`)).deliveries.length)
    .toBe(1);
  const [caught] = (await api(page, "GET", `/api/capture-bins/${bin.id}/requests`)).requests;
  expect(caught).toBeDefined();

  const pages: { path: string; shows: (p: typeof page) => ReturnType<typeof page.getByRole> }[] = [
    { path: "/destinations", shows: (p) => p.getByRole("link", { name, exact: true }) },
    { path: `/destinations/${dest.id}`, shows: (p) => p.getByRole("heading", { level: 1, name, exact: true }) },
    { path: "/sources", shows: (p) => p.getByRole("link", { name: `First render source ${run}` }) },
    { path: `/log?destinationId=${dest.id}`, shows: (p) => p.getByText(event, { exact: true }) },
    { path: "/capture", shows: (p) => p.getByRole("link", { name: `First render bin ${run}` }) },
    { path: `/capture/${bin.id}`, shows: (p) => p.getByText(new RegExp(`#${caught.id}\\b`)) },
  ];
  const storageState = await page.context().storageState();

  // The HTML as the server sends it: no script runs, so whatever is drawn came in the first response.
  const html = await browser.newContext({ baseURL, javaScriptEnabled: false, storageState, viewport: DESKTOP });
  try {
    const noScript = await html.newPage();
    for (const { path, shows } of pages) {
      const res = await noScript.goto(path);
      expect(res?.status(), path).toBe(200);
      await expect(shows(noScript).filter({ visible: true }).first(), `${path}: its data in the first HTML`).toBeVisible();
    }
    // The destination page's figures and recent attempts came with it too.
    await noScript.goto(`/destinations/${dest.id}`);
    await expect(noScript.getByText("1 event (1 attempt)", { exact: false })).toBeVisible();
    await expect(noScript.getByRole("status").filter({ hasText: /^Loading/ })).toHaveCount(0);
  } finally {
    await html.close();
  }

  // Hydration: the browser draws the same page over the server's HTML; React reports a mismatch as a console error.
  const live = await browser.newContext({ baseURL, storageState, viewport: DESKTOP, timezoneId: "Pacific/Auckland", locale: "de-DE" });
  try {
    const browserPage = await live.newPage();
    const errors: string[] = [];
    browserPage.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });
    browserPage.on("pageerror", (err) => errors.push(err.message));
    for (const { path, shows } of pages) {
      await browserPage.goto(path);
      await expect(shows(browserPage).filter({ visible: true }).first()).toBeVisible();
      // Hydration has run once the page's scripts have loaded and the network has gone quiet.
      await browserPage.waitForLoadState("networkidle");
    }
    expect(errors.filter((e) => /hydrat|#418|#419|#423|#425/i.test(e))).toEqual([]);
  } finally {
    await live.close();
  }
});
