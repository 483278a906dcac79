import fs from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import { DESKTOP, PHONE, expectAccessible, settle } from "./checks";
import { shot } from "./shot";

/**
 * Every page of a route group, read from the app folder ("/destinations/[id]/edit"), so a page
 * added later is walked without anyone remembering to list it.
 */
export function discoverRoutes(group: "(dashboard)" | "(auth)"): string[] {
  const root = path.join("app", group);
  const routes: string[] = [];
  const visit = (dir: string, segments: string[]) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isFile() && entry.name === "page.tsx") routes.push(`/${segments.join("/")}`);
      if (entry.isDirectory()) {
        // A nested route group "(x)" adds no URL segment.
        const seg = /^\(.*\)$/.test(entry.name) ? [] : [entry.name];
        visit(path.join(dir, entry.name), [...segments, ...seg]);
      }
    }
  };
  visit(root, []);
  return routes.sort();
}

/** "/destinations/[id]/edit" with the ids of seeded resources, by the route's first segment. */
export function fillRoute(route: string, ids: Record<string, string>): string {
  const section = route.split("/")[1];
  return route.replace(/\[[^\]]+\]/g, () => {
    const id = ids[section];
    if (!id) throw new Error(`${route}: the page walk has no seeded ${section} to open; seed one in e2e/walk.spec.ts`);
    return id;
  });
}

/** A file-name-safe name for a route: "/destinations/[id]/edit" → "destinations-id-edit". */
export const routeName = (route: string) => route.replace(/^\//, "").replace(/[[\]]/g, "").replace(/\//g, "-") || "home";

/**
 * Opens the page at desktop and phone width (and, with `dark`, desktop in dark mode): each time the
 * page settles, passes axe (no serious or critical violation) and the phone/overflow checks, and is
 * photographed into e2e/artifacts.
 */
export async function walkPage(page: Page, url: string, name: string, opts: { dark?: boolean; nav?: boolean } = {}) {
  const started = Date.now();
  const passes: { size: { width: number; height: number }; scheme: "light" | "dark"; label: string }[] = [
    { size: DESKTOP, scheme: "light", label: name },
    { size: PHONE, scheme: "light", label: name },
    ...(opts.dark ? [{ size: DESKTOP, scheme: "dark" as const, label: `${name}-dark` }] : []),
  ];
  for (const p of passes) {
    await page.setViewportSize(p.size);
    await page.emulateMedia({ colorScheme: p.scheme });
    const res = await page.goto(url);
    expect(res?.status(), `${url} answers`).toBeLessThan(400);
    await settle(page);
    await expect(page).toHaveTitle(/ · Eventrail$/);
    await expectAccessible(page, `${url} (${p.label}, ${p.size.width}px)`);
    await shot(page, p.label, { nav: opts.nav ?? true });
  }
  console.log(`  walked ${url} (${name}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(DESKTOP);
}

/**
 * Walks the pages (walkPage) on each of `pages` at once, every page taking the next one left when it
 * is done: the walk only reads, so two browser tabs halve its time where the machine has the cores
 * (docs/decisions/0154-ci-time.md). Each tab keeps its own viewport and colour scheme.
 */
export async function walkPages(pages: Page[], walks: { url: string; name: string; opts?: { dark?: boolean; nav?: boolean } }[]) {
  const left = [...walks];
  await Promise.all(
    pages.map(async (page) => {
      for (let w = left.shift(); w; w = left.shift()) await walkPage(page, w.url, w.name, w.opts);
    }),
  );
}
