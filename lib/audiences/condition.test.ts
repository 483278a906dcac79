import { describe, expect, it } from "vitest";
import { numericValue } from "./condition";

describe("numericValue", () => {
  it("reads numbers and numeric strings only", () => {
    expect(numericValue(3)).toBe(3);
    expect(numericValue(" 2.5 ")).toBe(2.5);
    expect(numericValue("1e3")).toBe(1000);
    expect(numericValue("2026-01-01")).toBeNull();
    expect(numericValue(true)).toBeNull();
  });
});
