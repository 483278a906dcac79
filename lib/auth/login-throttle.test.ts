import { describe, expect, it } from "vitest";
import { failureDelayMs } from "./login-throttle";

describe("failureDelayMs", () => {
  it("answers the first three failures at once, then doubles from 250 ms up to 4 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50].map(failureDelayMs)).toEqual([0, 0, 0, 250, 500, 1000, 2000, 4000, 4000, 4000, 4000]);
  });
});
