import { describe, expect, it } from "vitest";
import { describeCondition } from "./describe";

describe("describeCondition", () => {
  it("reads the product's example tree", () => {
    expect(
      describeCondition({
        all: [
          { trait: "plan", op: "equals", value: "pro" },
          { any: [{ event: "Order Completed", atLeast: 3, withinDays: 30, where: [{ property: "total", op: "gt", value: 100 }] }, { trait: "vip", op: "exists" }] },
        ],
      }),
    ).toBe('plan = "pro" AND (Order Completed ≥ 3× in 30 d where total > 100 OR vip exists)');
  });
});
