// The house rules that a reviewer would otherwise have to remember (docs/README.md#conventions):
// - code the browser loads never reaches a module marked `import "server-only"`;
// - every other module under lib/ is marked, so a wrong import fails `next build` too;
// - the dashboard's pages ship no zod unless they hold a form validated with a contract's schemas;
// - prisma/migrations/schema.snapshot.prisma is schema.prisma as of the last migration;
// - unit files that mock a module of ours run isolated (the unit project shares one registry);
// - the README's folder table names every folder of lib/ and the top level;
// - every doc anchor cited from code (`docs/x.md#anchor`) or linked from a page exists, and no
//   source file cites a file outside the repository (docs/README.md#conventions).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

function walk(dir: string, keep: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      // Installed packages and build output (.gitignore) are not the house.
      if (["node_modules", "generated", "dist"].includes(e.name) || e.name.startsWith(".")) continue;
      out.push(...walk(p, keep));
    } else if (keep(p)) out.push(p);
  }
  return out;
}

const isSource = (f: string) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f);
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm;

/** The files a module imports for their values (type-only imports vanish at build time). */
function valueImports(file: string): string[] {
  const src = fs.readFileSync(path.join(root, file), "utf8");
  const out: string[] = [];
  for (const m of src.matchAll(IMPORT)) {
    if (m[1]) continue;
    const spec = m[2];
    let base: string;
    if (spec.startsWith("@/")) base = spec.slice(2);
    else if (spec.startsWith(".")) base = path.join(path.dirname(file), spec);
    else continue;
    const found = [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find(
      (c) => fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile(),
    );
    if (found) out.push(path.normalize(found));
  }
  return out;
}

const isServerOnly = (file: string) => /^import "server-only";/m.test(fs.readFileSync(path.join(root, file), "utf8"));
const isClientEntry = (file: string) =>
  file.startsWith("components/") || /^["']use client["']/m.test(fs.readFileSync(path.join(root, file), "utf8"));

/** Every module the browser can load: client entries and what they import, transitively. */
function browserModules(): Map<string, string> {
  const via = new Map<string, string>();
  const stack = [...walk("components", isSource), ...walk("app", isSource).filter(isClientEntry)].map((f) => [f, f] as const);
  while (stack.length) {
    const [file, from] = stack.pop()!;
    if (via.has(file)) continue;
    via.set(file, from);
    for (const dep of valueImports(file)) stack.push([dep, file]);
  }
  return via;
}

const usesClient = (file: string) => /^["']use client["']/m.test(fs.readFileSync(path.join(root, file), "utf8"));
const importsZod = (file: string) =>
  /^\s*import\s+(?!type\s)[^;]*?from\s+["']zod["']/m.test(fs.readFileSync(path.join(root, file), "utf8"));

/** The modules a page sends to the browser: its "use client" modules and what they import, transitively. */
function pageBrowserModules(page: string): Map<string, string> {
  const boundary: string[] = [];
  const server = new Set<string>();
  const stack = [page];
  while (stack.length) {
    const file = stack.pop()!;
    if (server.has(file)) continue;
    server.add(file);
    if (usesClient(file)) boundary.push(file);
    else stack.push(...valueImports(file));
  }
  const via = new Map<string, string>();
  const todo = boundary.map((f) => [f, f] as const);
  while (todo.length) {
    const [file, from] = todo.pop()!;
    if (via.has(file)) continue;
    via.set(file, from);
    for (const dep of valueImports(file)) todo.push([dep, file]);
  }
  return via;
}

/**
 * The pages that hold a form validated with a contract's own schemas in the browser, so they load zod
 * (docs/decisions/0175-dashboard-weight.md); every other page reaches the API through routes.ts.
 */
const PAGES_WITH_ZOD = [
  "app/(dashboard)/destinations/new/page.tsx",
  "app/(dashboard)/destinations/[id]/edit/page.tsx",
  "app/(dashboard)/deletions/page.tsx",
  "app/(dashboard)/audiences/new/page.tsx",
  "app/(dashboard)/audiences/[id]/edit/page.tsx",
  // its condition, described with the builder's operators (lib/audiences/condition.ts)
  "app/(dashboard)/audiences/[id]/page.tsx",
  "app/(dashboard)/tracking-plans/new/page.tsx",
  "app/(dashboard)/tracking-plans/[id]/page.tsx",
];

describe("the house", () => {
  it("runs every unit file that mocks a module (vi.mock) in a module registry of its own (vitest.config.ts MODULE_MOCKS)", () => {
    const config = fs.readFileSync(path.join(root, "vitest.config.ts"), "utf8");
    const listed = [...(config.match(/MODULE_MOCKS = \[([^\]]*)\]/)?.[1] ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    const mocking = ["lib", "worker", "app", "components", "scripts", "bench", "test"]
      .flatMap((d) => walk(d, (f) => /\.test\.tsx?$/.test(f) && !f.endsWith(".int.test.ts")))
      .filter((f) => f !== "test/house.test.ts" && /\bvi\.(do)?mock\(/i.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.sort()).toEqual(listed.sort());
  });

  it("keeps server modules out of the browser: nothing client code imports is marked server-only", () => {
    const offenders = [...browserModules()].filter(([f]) => isServerOnly(f)).map(([f, from]) => `${f} (imported by ${from})`);
    expect(offenders).toEqual([]);
  });

  it("marks every server module under lib/ with server-only (contracts, the SDK and browser-safe helpers excepted)", () => {
    const browser = browserModules();
    const browserSafe = (f: string) =>
      browser.has(f) ||
      f.endsWith("/contract.ts") ||
      f.startsWith("lib/sdk/") ||
      f === "lib/api/endpoint.ts" ||
      f === "lib/api/endpoints.ts";
    const unmarked = walk("lib", isSource).filter((f) => !browserSafe(f) && !isServerOnly(f));
    expect(unmarked).toEqual([]);
  });

  it("keeps contract modules browser-safe: they import only zod and other browser-safe modules", () => {
    const contracts = walk("lib", (f) => f.endsWith("/contract.ts"));
    expect(contracts.length).toBeGreaterThan(5);
    const serverDeps = contracts.flatMap((c) =>
      valueImports(c)
        .filter(isServerOnly)
        .map((d) => `${c} → ${d}`),
    );
    expect(serverDeps).toEqual([]);
  });

  it("keeps zod out of every page without a schema-validated form, and the dashboard's layout", () => {
    const pages = [...walk("app", (f) => /(^|\/)(page|layout)\.tsx$/.test(f))].filter((f) => !PAGES_WITH_ZOD.includes(f));
    expect(pages).toEqual(expect.arrayContaining(["app/(dashboard)/layout.tsx", "app/(dashboard)/destinations/[id]/page.tsx"]));
    const offenders = pages.flatMap((page) =>
      [...pageBrowserModules(page)].filter(([f]) => importsZod(f)).map(([f, from]) => `${page}: ${f} (imported by ${from})`),
    );
    expect(offenders).toEqual([]);
  });

  it("has no schema drift: the migration snapshot is schema.prisma as of the last migration", () => {
    const schema = fs.readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
    const snapshot = fs.readFileSync(path.join(root, "prisma/migrations/schema.snapshot.prisma"), "utf8");
    // When this fails: `npm run db:migration:new -- <name>` writes the migration and refreshes the snapshot.
    expect(snapshot).toBe(schema);
  });

  it("names every folder of lib/ and the top level in the README's folder table", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const start = readme.search(/^\|\s*folder\s*\|/m);
    expect(start).toBeGreaterThan(-1);
    const table = readme.slice(start);
    const tops = fs
      .readdirSync(root, { withFileTypes: true })
      .filter(
        (e) =>
          e.isDirectory() && !e.name.startsWith(".") && !["node_modules", "test-results", "playwright-report", "dist"].includes(e.name),
      )
      .map((e) => `${e.name}/`);
    const libs = fs
      .readdirSync(path.join(root, "lib"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `lib/${e.name}/`);
    const missing = [...tops, ...libs].filter((f) => !table.includes(`\`${f}\``));
    expect(missing).toEqual([]);
  });

  it("cites only doc anchors that exist: from code (docs/x.md#anchor) and from pages (markdown links)", () => {
    expect(
      docCitations()
        .filter((c) => !resolves(c))
        .map(describeBroken),
    ).toEqual([]);
  });

  it("cites no file outside the repository from source (PRODUCT.md, ../shared)", () => {
    const outside: string[] = [];
    for (const file of walk(".", isCitingSource)) {
      lines(file).forEach((line, i) => {
        for (const m of line.matchAll(MD_PATH)) {
          if (!fs.existsSync(path.join(root, m[1]))) outside.push(`${file}:${i + 1} cites ${m[1]}, which is not in the repository`);
        }
        for (const m of line.matchAll(PARENT_PATH)) {
          const to = path.relative(root, path.resolve(root, path.dirname(file), m[1]));
          if (to.startsWith("..")) outside.push(`${file}:${i + 1} cites ${m[1]}, which is outside the repository`);
        }
      });
    }
    expect(outside).toEqual([]);
  });

  it("makes anchors as GitHub does: lower case, punctuation dropped, each space a hyphen, repeats numbered", () => {
    expect(
      anchorsOf(
        '# Foreign keys on the hot path\n## `X-Signature`, the [seed](a.md)\n## A — b\n```\n# not a heading\n```\n## A — b\n<a id="kept"></a>',
      ),
    ).toEqual(new Set(["foreign-keys-on-the-hot-path", "x-signature-the-seed", "a--b", "a--b-1", "kept"]));
  });
});

// ---- doc anchors ----------------------------------------------------------------------------

// This file is left out: its names and examples describe citations, they are not citations.
const isCitingSource = (f: string) => /\.(tsx?|mjs|cjs|js|prisma|sql|css)$/.test(f) && f !== "test/house.test.ts";
const lines = (file: string) => fs.readFileSync(path.join(root, file), "utf8").split("\n");
/** A repository path to a Markdown file as code cites it: `docs/webhooks.md`, `README.md`. */
const MD_PATH = /(?<![\w./@-])((?:\.{0,2}\/)?[\w-]+(?:\/[\w.-]+)*\.md)\b(?:#([\w-]+))?/g;
/** A relative path that climbs out of its folder: `../shared/x`. */
const PARENT_PATH = /(?<![\w.@/-])((?:\.\.\/)+[\w.-][\w./-]*)/g;

/** GitHub's anchor of each heading (fenced code skipped; repeats get -1, -2), and explicit `<a id>`s. */
function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

type Citation = { from: string; line: number; target: string; anchor?: string };

/** Every doc citation: `docs/x.md#a` in source, and each relative link of the Markdown pages. */
function docCitations(): Citation[] {
  const out: Citation[] = [];
  for (const file of walk(".", isCitingSource)) {
    lines(file).forEach((text, i) => {
      for (const m of text.matchAll(MD_PATH)) if (m[2]) out.push({ from: file, line: i + 1, target: path.normalize(m[1]), anchor: m[2] });
    });
  }
  const pages = [...walk("docs", (f) => f.endsWith(".md")), ...walk("bench", (f) => f.endsWith(".md")), "README.md"];
  for (const file of pages) {
    let fence = false;
    lines(file).forEach((text, i) => {
      if (/^\s*(```|~~~)/.test(text)) fence = !fence;
      if (fence) return;
      for (const m of text.matchAll(/\]\(([^()\s]*)\)/g)) {
        if (/^[a-z]+:/i.test(m[1])) continue;
        const [link, anchor] = m[1].split("#");
        const target = link ? path.normalize(path.join(path.dirname(file), link)) : file;
        out.push({ from: file, line: i + 1, target, anchor });
      }
    });
  }
  return out;
}

const anchorCache = new Map<string, Set<string>>();
function resolves(c: Citation): boolean {
  const file = path.join(root, c.target);
  if (!fs.existsSync(file)) return false;
  if (!c.anchor) return true;
  if (!c.target.endsWith(".md")) return false;
  if (!anchorCache.has(c.target)) anchorCache.set(c.target, anchorsOf(fs.readFileSync(file, "utf8")));
  return anchorCache.get(c.target)!.has(c.anchor);
}

const describeBroken = (c: Citation) =>
  fs.existsSync(path.join(root, c.target))
    ? `${c.from}:${c.line} cites ${c.target}#${c.anchor}: no heading or <a id> makes that anchor`
    : `${c.from}:${c.line} cites ${c.target}, which does not exist`;
