import { describe, expect, it } from "vitest";
import { logKeys, normaliseFilter } from "./queries";

describe("request log filters", () => {
  it("keeps only set filters, in one order, so equal filters share a cache entry", () => {
    expect(normaliseFilter({ type: "track", destinationId: "", outcome: "failed" })).toEqual({ outcome: "failed", type: "track" });
    expect(logKeys.list({ type: "track", outcome: "failed" })).toEqual(logKeys.list({ outcome: "failed", type: "track", userId: undefined }));
    expect(Object.keys(normaliseFilter({ to: "b", from: "a", url: "u" }))).toEqual(["url", "from", "to"]);
  });
});
