// House rule (lib/tracking/produce.ts): messages are written by one producer, insertMessage, and by
// the two statements that write them in bulk (ingest and an audience sync), all with the one
// row-id scheme (lib/tracking/row-ids.ts). A new writer of messages goes through insertMessage.
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
  it("only the producer and the two bulk writers insert messages", () => {
    const writers = serverCode.filter((f) => /INSERT\s+INTO\s+"?messages"?\s*\(|\bmessage\.(create|createMany|upsert)\(/i.test(read(f)));
    expect(writers.sort()).toEqual(["lib/audiences/sync-lane.ts", "lib/tracking/persist.ts", "lib/tracking/produce.ts"]);
  });

  it("no writer of messages makes its ids outside the row-id scheme", () => {
    for (const f of ["lib/audiences/sync-lane.ts", "lib/tracking/persist.ts", "lib/tracking/produce.ts"])
      expect(read(f), f).toMatch(/from "\.{1,2}\/(tracking\/)?row-ids"/);
  });
});
