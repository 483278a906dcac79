// House rule (lib/tracking/produce.ts): messages are written by one producer module, whose three
// writers (one message, an ingest request's, an audience sync's) all take their ids from the one
// row-id scheme (lib/tracking/row-ids.ts). A new writer of messages goes through it.
import { describe, expect, it } from "vitest";
import { readSource, serverSources } from "../../test/harness/server-sources";

const serverCode = serverSources();
const read = readSource;

describe("one message producer", () => {
  it("only the producer inserts messages", () => {
    const writers = serverCode.filter((f) => /INSERT\s+INTO\s+"?messages"?\s*\(|\bmessage\.(create|createMany|upsert)\(/i.test(read(f)));
    expect(writers).toEqual(["lib/tracking/produce.ts"]);
  });

  it("the producer makes its ids with the row-id scheme", () => {
    expect(read("lib/tracking/produce.ts")).toMatch(/from "\.\/row-ids"/);
  });
});
