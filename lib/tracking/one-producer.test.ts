// House rule (lib/tracking/produce.ts): messages are written by one producer module, whose three
// writers (one message, an ingest request's, an audience sync's) all take their ids from the one
// row-id scheme (lib/tracking/row-ids.ts). A new writer of messages goes through it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) continue;
      out.push(...sources(p));
    } else if (/\.tsx?$/.test(p) && !/\.test\.tsx?$/.test(p) && !p.includes(`${path.sep}testing${path.sep}`)) out.push(p);
  }
  return out;
}

const serverCode = ["lib", "worker", "ingest", "app"].flatMap(sources);
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

describe("one message producer", () => {
  it("only the producer inserts messages", () => {
    const writers = serverCode.filter((f) => /INSERT\s+INTO\s+"?messages"?\s*\(|\bmessage\.(create|createMany|upsert)\(/i.test(read(f)));
    expect(writers).toEqual(["lib/tracking/produce.ts"]);
  });

  it("the producer makes its ids with the row-id scheme", () => {
    expect(read("lib/tracking/produce.ts")).toMatch(/from "\.\/row-ids"/);
  });
});
