import { describe, expect, it } from "vitest";
import { backfillInputSchema } from "./contract";

const SOURCE = "5b0c8a8e-7f7e-4c55-9d55-6a1f4f0d1a11";

describe("backfill input", () => {
  it("takes sources and a window, not a dry run or a resend unless asked", () => {
    expect(backfillInputSchema.parse({ sourceIds: [SOURCE], from: "2026-11-28T09:00:00Z" })).toEqual({
      sourceIds: [SOURCE],
      from: "2026-11-28T09:00:00Z",
      dryRun: false,
      resend: false,
    });
  });

  it("refuses a window that ends before it starts, no source, and fields it does not know", () => {
    const bad = (v: unknown) => backfillInputSchema.safeParse(v).error?.issues.map((i) => i.path.join("."));
    expect(bad({ sourceIds: [SOURCE], from: "2026-11-28T09:00:00Z", to: "2026-11-28T08:00:00Z" })).toEqual(["to"]);
    expect(bad({ sourceIds: [], from: "2026-11-28T09:00:00Z" })).toEqual(["sourceIds"]);
    expect(bad({ sourceIds: [SOURCE], from: "yesterday" })).toEqual(["from"]);
    expect(bad({ sourceIds: [SOURCE], from: "2026-11-28T09:00:00Z", limit: 5 })).toEqual([""]);
  });
});
