import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { expect, test } from "@playwright/test";

/** The most JavaScript a first visit to any page may download, as sent (gzip), in KB (docs/dashboard.md#any-screen-any-input). */
const BUDGET_KB = 300;

/**
 * A first visit to any page downloads at most 300 KB of JavaScript as sent: every route of the build
 * e2e runs against, from `next build`'s own list of each route's first-load chunks, each gzipped as
 * `next start` sends it (bench:dashboard-weight counts the same bytes in Chromium; decision 0175).
 * Bytes do not depend on the machine, so this is a check, not a timing.
 */
test("every page's first load stays within 300 KB of JavaScript as sent", () => {
  const stats = path.join(".next", "diagnostics", "route-bundle-stats.json");
  expect(fs.existsSync(stats), `${stats}: written by next build`).toBe(true);
  const routes: { route: string; firstLoadChunkPaths: string[] }[] = JSON.parse(fs.readFileSync(stats, "utf8"));
  const pages = routes.filter((r) => !r.route.startsWith("/api/") && r.firstLoadChunkPaths.length > 0);
  // The dashboard's pages are all there (a format change of the file must not pass as "nothing to check").
  expect(pages.map((r) => r.route)).toEqual(expect.arrayContaining(["/overview", "/sources", "/destinations/[id]", "/log"]));
  const over = pages
    .map((r) => ({
      route: r.route,
      kb: r.firstLoadChunkPaths.reduce((sum, chunk) => sum + zlib.gzipSync(fs.readFileSync(chunk)).length, 0) / 1024,
    }))
    .filter((r) => r.kb > BUDGET_KB)
    .map((r) => `${r.route}: ${r.kb.toFixed(1)} KB`);
  expect(over, `first loads over ${BUDGET_KB} KB of JavaScript as sent`).toEqual([]);
});
