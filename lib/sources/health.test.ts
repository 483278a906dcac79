import { describe, expect, it } from "vitest";
import { sourceHealthState } from "./health";

describe("sourceHealthState (docs/dashboard.md#sources)", () => {
  it.each([
    [{ enabled: false, calls: 50, rejected: 50 }, "disabled"],
    [{ enabled: true, calls: 0, rejected: 0 }, "idle"],
    [{ enabled: true, calls: 200, rejected: 0 }, "healthy"],
    [{ enabled: true, calls: 200, rejected: 19 }, "healthy"],
    [{ enabled: true, calls: 200, rejected: 20 }, "rejecting"],
    [{ enabled: true, calls: 3, rejected: 1 }, "rejecting"],
    [{ enabled: true, calls: 1, rejected: 1 }, "rejecting"],
  ])("%j → %s", (sample, state) => {
    expect(sourceHealthState(sample)).toBe(state);
  });
});
