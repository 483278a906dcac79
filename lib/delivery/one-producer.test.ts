// House rule (lib/delivery/enqueue.ts, docs/architecture.md#one-plan): deliveries are written by one
// producer module, with ids from the one row-id scheme (lib/tracking/row-ids.ts). A new writer of
// deliveries goes through it: replays once used gen_random_uuid(), against the scheme.
import { describe, expect, it } from "vitest";
import { readSource, serverSources } from "../../test/harness/server-sources";

const serverCode = serverSources();

describe("one delivery producer", () => {
  it("only the producer inserts deliveries", () => {
    const writers = serverCode.filter((f) =>
      /INSERT\s+INTO\s+"?deliveries"?\s*\(|\bdelivery\.(create|createMany|upsert)\(/i.test(readSource(f)),
    );
    expect(writers).toEqual(["lib/delivery/enqueue.ts"]);
  });

  it("the producer makes its ids with the row-id scheme, never the database's random ones", () => {
    const producer = readSource("lib/delivery/enqueue.ts");
    expect(producer).toMatch(/from "\.\.\/tracking\/row-ids"/);
    expect(producer).not.toMatch(/gen_random_uuid/);
  });
});
