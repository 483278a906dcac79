import { describe, expect, it } from "vitest";
import { computeDrillReport, percentile, reasonOf } from "./report";

const receipts = (entries: [string, [string, number][]][]) => new Map(entries.map(([d, m]) => [d, new Map(m)]));

describe("computeDrillReport", () => {
  it("counts delivered, failed by reason and duplicates, with nothing lost", () => {
    const r = computeDrillReport({
      accepted: new Set(["m1", "m2", "m3"]),
      destinationIds: ["d1"],
      rows: [
        { messageId: "m1", destinationId: "d1", state: "delivered", lastError: null },
        { messageId: "m2", destinationId: "d1", state: "delivered", lastError: null },
        { messageId: "m3", destinationId: "d1", state: "failed", lastError: "timeout: no complete response within 5 s" },
      ],
      receipts: receipts([
        [
          "d1",
          [
            ["m1", 1],
            ["m2", 3],
          ],
        ],
      ]),
    });
    expect(r).toEqual({
      accepted: 3,
      deliveries: 3,
      delivered: 2,
      failed: 1,
      failedReasons: { "timeout: no complete response within 5 s": 1 },
      lost: 0,
      lostExamples: [],
      duplicates: 2,
    });
  });

  it("counts as lost: still pending, no delivery at all, and delivered but never received", () => {
    const r = computeDrillReport({
      accepted: new Set(["m1", "m2", "m3"]),
      destinationIds: ["d1"],
      rows: [
        { messageId: "m1", destinationId: "d1", state: "pending", lastError: null },
        { messageId: "m3", destinationId: "d1", state: "delivered", lastError: null },
      ],
      receipts: receipts([]),
    });
    expect(r.lost).toBe(3);
    expect(r.lostExamples.join("\n")).toMatch(/m1.*pending[\s\S]*m2.*no delivery[\s\S]*m3.*never received/);
  });

  it("checks every destination of a message", () => {
    const r = computeDrillReport({
      accepted: new Set(["m1"]),
      destinationIds: ["d1", "d2"],
      rows: [{ messageId: "m1", destinationId: "d1", state: "delivered", lastError: null }],
      receipts: receipts([["d1", [["m1", 1]]]]),
    });
    expect(r).toMatchObject({ deliveries: 2, delivered: 1, lost: 1 });
  });
});

describe("helpers", () => {
  it("groups reasons without ports or error codes", () => {
    expect(reasonOf("connect ECONNREFUSED 127.0.0.1:45123 (ECONNREFUSED)")).toBe("connect ECONNREFUSED 127.0.0.1:<port>");
    expect(reasonOf(null)).toBe("unknown");
  });
  it("takes nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(xs, 50), percentile(xs, 99), percentile(xs, 100)]).toEqual([50, 99, 100]);
    expect(percentile([7], 99)).toBe(7);
  });
});
