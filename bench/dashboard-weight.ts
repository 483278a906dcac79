/**
 * `npm run bench:dashboard-weight` — what the dashboard costs a browser (issue 52 item 8,
 * docs/decisions/0175-dashboard-weight.md): the JavaScript of a first load, and the time of a page
 * switch by client navigation.
 *
 * A fresh database, the production app (`next start`, built first if needed) and a worker; the
 * first-run owner, a source, a capture URL and a destination that sends to it, and a few calls
 * delivered, so that every page has rows to draw. Then, in Chromium (/usr/bin/chromium, or
 * CHROMIUM_PATH) with the owner's session:
 *   first load   — each main page (requested once before, so that the server has loaded its code)
 *                  opened in a fresh context (empty cache): the bytes of every script
 *                  response until the page has drawn its data and the network is idle (Next's
 *                  prefetches included), as transferred (`_gz`: the body as sent, gzip) and as parsed
 *                  (`_raw`: decoded); and when, from asking for the page, its HTML and its scripts
 *                  had arrived, its first API call left and its data was drawn. The largest page's
 *                  figures are the result's `first_load_*`.
 *   page switch  — one tab clicks through overview → destinations → the destination → log → sources
 *                  → overview, BENCH_ROUNDS times (default 6): the time from the click to the new
 *                  page's heading with no "Loading…" left, measured inside the page
 *                  (performance.now(), polled every frame). Round 1 loads each page's code for the
 *                  first time (`cold_switch_max_ms`); the median and max are over the later rounds.
 * Byte counts do not depend on the machine's load; times do, so the load average is printed with
 * them (and `load=` on the result line): on a shared machine they are indicative.
 * The floor is GET /api/sources from the same browser (an authenticated call that reads almost
 * nothing): `ratio` = floor / median page switch.
 */
import os from "node:os";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { buildIfNeeded } from "../scripts/lib/build";
import { setupOwner, type SessionClient } from "../test/harness/members";
import { createTestDatabase } from "../test/harness/pg";
import { startApp, startWorker, waitFor } from "../test/harness/stack";
import { costRatio, median, printResult, runBench } from "./lib/result";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const GOAL_KB = 300;
const GOAL_SWITCH_MS = 300;

type Seeded = { destinationId: string; destinationName: string };

async function seed(owner: SessionClient): Promise<Seeded> {
  const source = await owner.post<{ id: string; writeKey: string }>("/api/sources", { name: "Shop backend" });
  const bin = await owner.post<{ id: string; url: string }>("/api/capture-bins", { name: "Bench receiver" });
  const destinationName = "Warehouse hook";
  const destination = await owner.post<{ id: string }>("/api/destinations", {
    name: destinationName,
    urls: [bin.url],
    sourceIds: [source.id],
  });
  const batch = Array.from({ length: 20 }, (_, i) => ({
    type: "track",
    userId: `user-${i % 5}`,
    event: i % 2 ? "Order Completed" : "Product Viewed",
    properties: { total: i * 3 },
  }));
  const res = await fetch(`${owner.baseUrl}/v1/batch`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${source.writeKey}:`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify({ batch }),
  });
  if (!res.ok) throw new Error(`/v1/batch → ${res.status} ${await res.text()}`);
  await waitFor(
    async () => (await owner.get<{ attempts: unknown[] }>(`/api/attempts?destinationId=${destination.id}`)).attempts.length >= batch.length,
    { timeoutMs: 60_000, what: "the calls to be delivered" },
  );
  return { destinationId: destination.id, destinationName };
}

async function sessionContext(browser: Browser, baseUrl: string, owner: SessionClient): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: baseUrl });
  await context.addCookies(
    owner.cookie.split("; ").map((c) => {
      const at = c.indexOf("=");
      return { name: c.slice(0, at), value: c.slice(at + 1), url: baseUrl };
    }),
  );
  return context;
}

/** Whether the page at `path` has drawn (runs in the page): its h1 is `heading` and nothing says it is loading (as e2e/checks.ts settle). */
function drawn([path, heading]: [string, string]): boolean {
  if (location.pathname !== path) return false;
  const h1 = document.querySelector("main h1");
  if (!h1 || h1.textContent?.trim() !== heading) return false;
  const loading = [...document.querySelectorAll('[role="status"]')].some((s) => /^(Loading|Checking)/.test(s.textContent?.trim() ?? ""));
  return !loading && !document.querySelector('[aria-label="Loading"]');
}

async function waitDrawn(page: Page, path: string, heading: string) {
  await page.waitForFunction(drawn, [path, heading] as [string, string], { polling: "raf", timeout: 30_000 });
}

/** When, in ms from asking for the page, its HTML had arrived, its scripts had arrived, its first API call left, and it was drawn. */
type Timeline = { html: number; scripts: number; api: number; drawn: number };
type Load = { page: string; scripts: number; gz: number; raw: number; loadGz: number; loadRaw: number; at: Timeline };

/** A first visit to `path` in a fresh context: every script response, until drawn and the network idle. */
async function firstLoad(browser: Browser, baseUrl: string, owner: SessionClient, path: string, heading: string): Promise<Load> {
  const context = await sessionContext(browser, baseUrl, owner);
  const page = await context.newPage();
  const seen: Promise<{ gz: number; raw: number }>[] = [];
  let beforeDrawn = 0;
  page.on("response", (res) => {
    if (res.request().resourceType() !== "script") return;
    seen.push(Promise.all([res.request().sizes(), res.body()]).then(([sizes, body]) => ({ gz: sizes.responseBodySize, raw: body.length })));
  });
  await page.goto(path);
  await waitDrawn(page, path, heading);
  // Navigation start is the page's time origin: each figure is from asking for the page.
  const at = await page.evaluate((): Timeline => {
    const drawn = performance.now();
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
    const scripts = resources.filter((r) => r.initiatorType === "script" && r.startTime < drawn);
    const api = resources.filter((r) => new URL(r.name).pathname.startsWith("/api/"));
    return {
      html: nav.responseEnd,
      scripts: Math.max(0, ...scripts.map((r) => r.responseEnd)),
      api: api.length ? Math.min(...api.map((r) => r.startTime)) : Number.NaN,
      drawn,
    };
  });
  beforeDrawn = seen.length;
  await page.waitForLoadState("networkidle");
  const sizes = await Promise.all(seen);
  await context.close();
  const sum = (xs: { gz: number; raw: number }[], k: "gz" | "raw") => xs.reduce((a, x) => a + x[k], 0);
  return {
    page: path,
    scripts: sizes.length,
    gz: sum(sizes, "gz"),
    raw: sum(sizes, "raw"),
    loadGz: sum(sizes.slice(0, beforeDrawn), "gz"),
    loadRaw: sum(sizes.slice(0, beforeDrawn), "raw"),
    at,
  };
}

/** Clicks the link to `path` (found by `selector`) and returns the ms until the new page has drawn, timed in the page. */
async function switchTo(page: Page, selector: string, path: string, heading: string): Promise<number> {
  await page.evaluate((sel) => {
    const link = document.querySelector<HTMLAnchorElement>(sel);
    if (!link) throw new Error(`no link ${sel}`);
    (window as unknown as { __switchAt: number }).__switchAt = performance.now();
    link.click();
  }, selector);
  await waitDrawn(page, path, heading);
  return page.evaluate(() => performance.now() - (window as unknown as { __switchAt: number }).__switchAt);
}

const kb = (n: number) => n / 1024;
const ms = (n: number) => (Number.isNaN(n) ? "-" : String(Math.round(n)));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

async function main() {
  buildIfNeeded((m) => console.log(`[bench] ${m}`));
  const db = await createTestDatabase();
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  let browser: Browser | undefined;
  try {
    app = await startApp(db.url);
    worker = await startWorker(db.url, { EVENTRAIL_PUBLIC_PORT: new URL(app.url).port });
    const owner = await setupOwner(app.url);
    const { destinationId, destinationName } = await seed(owner);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });

    const pages = [
      { path: "/overview", heading: "Delivery overview", link: 'nav a[href="/overview"]' },
      { path: "/destinations", heading: "Destinations", link: 'nav a[href="/destinations"]' },
      { path: `/destinations/${destinationId}`, heading: destinationName, link: `main a[href="/destinations/${destinationId}"]` },
      { path: "/log", heading: "Request log", link: 'nav a[href="/log"]' },
      { path: "/sources", heading: "Sources", link: 'nav a[href="/sources"]' },
    ];

    // The server loads a route's code on its first request (preloadEntriesOnStart: false): once per
    // page before timing, as a server that has been running would have.
    for (const p of pages) {
      const res = await fetch(app.url + p.path, { headers: { cookie: owner.cookie } });
      if (res.status !== 200) throw new Error(`${p.path} → ${res.status}`);
      await res.text();
    }

    console.log(`\nfirst load (fresh context, scripts until drawn + network idle), load ${load()}:`);
    const loads: Load[] = [];
    for (const p of pages) {
      const l = await firstLoad(browser, app.url, owner, p.path, p.heading);
      loads.push(l);
      console.log(
        `  ${p.path.padEnd(52)} ${String(l.scripts).padStart(3)} scripts  ${kb(l.gz).toFixed(1).padStart(7)} KB gzip  ${kb(l.raw).toFixed(1).padStart(7)} KB raw` +
          `  (until drawn: ${kb(l.loadGz).toFixed(1)} KB gzip, ${kb(l.loadRaw).toFixed(1)} KB raw)` +
          `\n  ${"".padEnd(52)} HTML at ${ms(l.at.html)}, scripts at ${ms(l.at.scripts)}, first API call at ${ms(l.at.api)}, drawn at ${ms(l.at.drawn)} ms`,
      );
    }
    const heaviest = loads.reduce((a, b) => (b.gz > a.gz ? b : a));

    const context = await sessionContext(browser, app.url, owner);
    const page = await context.newPage();
    // The floor: an authenticated API call from the same browser.
    const floors: number[] = [];
    for (let i = 0; i < 23; i++) {
      const t = performance.now();
      const res = await page.request.get(`${app.url}/api/sources`);
      await res.body();
      if (i >= 3) floors.push(performance.now() - t);
    }
    const floor = median(floors);

    await page.goto(pages[0].path);
    await waitDrawn(page, pages[0].path, pages[0].heading);
    const loadBefore = load();
    const cold: number[] = [];
    const warm: Record<string, number[]> = Object.fromEntries(pages.map((p) => [p.path, []]));
    // overview → destinations → the destination (its link is on the list) → log → sources → overview
    const order = [1, 2, 3, 4, 0];
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of order) {
        const p = pages[i];
        const ms = await switchTo(page, p.link, p.path, p.heading);
        if (round === 0) cold.push(ms);
        else warm[p.path].push(ms);
      }
    }
    const loadAfter = load();
    await context.close();

    console.log(`\npage switches (click → drawn), ${ROUNDS} rounds, load before ${loadBefore}, after ${loadAfter}:`);
    console.log(`  round 1 (each page's code loaded for the first time): ${cold.map((ms) => `${Math.round(ms)}`).join(" · ")} ms`);
    const all: number[] = [];
    for (const p of pages) {
      const xs = warm[p.path];
      all.push(...xs);
      console.log(
        `  → ${p.path.padEnd(50)} median ${median(xs).toFixed(0).padStart(5)} ms  max ${Math.max(...xs)
          .toFixed(0)
          .padStart(5)} ms`,
      );
    }
    const switchMedian = median(all);
    console.log(`  all: median ${switchMedian.toFixed(0)} ms, max ${Math.max(...all).toFixed(0)} ms · goal ≤ ${GOAL_SWITCH_MS} ms`);
    console.log(`GET /api/sources from the browser (floor): ${floor.toFixed(1)} ms`);
    console.log(
      `heaviest first load: ${heaviest.page}, ${kb(heaviest.gz).toFixed(1)} KB gzip, ${kb(heaviest.raw).toFixed(1)} KB raw · goal ≤ ${GOAL_KB} KB`,
    );

    printResult("dashboard-weight", costRatio(switchMedian, floor), {
      first_load_gz_kb: kb(heaviest.gz),
      first_load_raw_kb: kb(heaviest.raw),
      first_load_page: heaviest.page,
      first_load_drawn_max_ms: Math.max(...loads.map((l) => l.at.drawn)),
      ...Object.fromEntries(loads.map((l) => [`${l.page.split("/")[1]}${l.page.split("/").length > 2 ? "_id" : ""}_gz_kb`, kb(l.gz)])),
      switch_median_ms: switchMedian,
      switch_max_ms: Math.max(...all),
      cold_switch_max_ms: Math.max(...cold),
      floor_ms: floor,
    });
  } finally {
    await browser?.close();
    await worker?.stop();
    await app?.stop();
    await db.drop();
  }
}

runBench(main);
