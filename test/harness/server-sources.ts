// The server's own source files, for the house-rule tests (lib/webhooks/one-sender.test.ts,
// lib/tracking/one-producer.test.ts): every .ts/.tsx under lib, worker, ingest and app, without
// tests, test helpers (`testing/`) or generated code; paths relative to the repository root.
import fs from "node:fs";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) continue;
      out.push(...sources(p));
    } else if (/\.tsx?$/.test(p) && !/\.test\.tsx?$/.test(p) && !p.includes(`${path.sep}testing${path.sep}`)) out.push(p);
  }
  return out;
}

export const serverSources = (): string[] => ["lib", "worker", "ingest", "app"].flatMap(sources);

export const readSource = (f: string) => fs.readFileSync(path.join(repoRoot, f), "utf8");
