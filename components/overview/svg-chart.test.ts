import { describe, expect, it } from "vitest";
import { yTicks } from "./svg-chart";

describe("yTicks", () => {
  it("steps by 1, 2 or 5 × 10ⁿ from 0 to at least the largest value, about four steps", () => {
    expect(yTicks(100)).toEqual([0, 50, 100]);
    expect(yTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(yTicks(930)).toEqual([0, 500, 1000]);
    expect(yTicks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it("keeps counts whole when asked", () => {
    expect(yTicks(3, true)).toEqual([0, 1, 2, 3]);
    expect(yTicks(1, true)).toEqual([0, 1]);
  });

  it("gives an empty chart an axis", () => {
    expect(yTicks(0)).toEqual([0, 1]);
    expect(yTicks(0, true)).toEqual([0, 1]);
  });
});
