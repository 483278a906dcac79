// The house rules that a reviewer would otherwise have to remember (docs/README.md#conventions):
// - code the browser loads never reaches a module marked `import "server-only"`;
// - every other module under lib/ is marked, so a wrong import fails `next build` too;
// - prisma/migrations/schema.snapshot.prisma is schema.prisma as of the last migration;
// - the README's folder table names every folder of lib/ and the top level.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

function walk(dir: string, keep: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) continue;
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

describe("the house", () => {
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
      .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !["node_modules", "test-results", "playwright-report"].includes(e.name))
      .map((e) => `${e.name}/`);
    const libs = fs
      .readdirSync(path.join(root, "lib"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `lib/${e.name}/`);
    const missing = [...tops, ...libs].filter((f) => !table.includes(`\`${f}\``));
    expect(missing).toEqual([]);
  });
});
