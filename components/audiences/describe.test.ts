import { describe, expect, it } from "vitest";
import { describeCondition, syncDelta } from "./describe";

describe("describeCondition", () => {
  it("reads the product's example tree", () => {
    expect(
      describeCondition({
        all: [
          { trait: "plan", op: "equals", value: "pro" },
          {
            any: [
              { event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "gt", value: 100 }] },
              { trait: "vip", op: "exists" },
            ],
          },
        ],
      }),
    ).toBe('plan = "pro" AND (Order Completed ≥ 3× in 30 d where total > 100 OR vip exists)');
  });
});

describe("syncDelta", () => {
  it("shows no change as a neutral 0, never as −0 or +0", () => {
    expect(syncDelta(0, "exited")).toEqual({ text: "0", tone: "none" });
    expect(syncDelta(0, "entered")).toEqual({ text: "0", tone: "none" });
  });
  it("signs real changes", () => {
    expect(syncDelta(1200, "entered")).toEqual({ text: "+1,200", tone: "up" });
    expect(syncDelta(2, "exited")).toEqual({ text: "−2", tone: "down" });
  });
});
