import { describe, expect, it } from "vitest";
import { failedLoginWaitMs, failureDelayMs, loginPairKey } from "./login-throttle";

describe("failureDelayMs", () => {
  it("adds nothing for the first three failures, then doubles from 250 ms up to 4 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50].map(failureDelayMs)).toEqual([0, 0, 0, 250, 500, 1000, 2000, 4000, 4000, 4000, 4000]);
  });
});

describe("failedLoginWaitMs", () => {
  it("holds every failure to 400 ms after it arrived, plus the growing delay, whatever the work took", () => {
    expect(failedLoginWaitMs(1, 12)).toBe(388);
    expect(failedLoginWaitMs(1, 90)).toBe(310);
    expect(failedLoginWaitMs(5, 90)).toBe(810);
    // Work that took longer than the floor is not held further.
    expect(failedLoginWaitMs(1, 450)).toBe(0);
    expect(failedLoginWaitMs(4, 450)).toBe(200);
  });
});

describe("loginPairKey", () => {
  it("keeps the address and the account apart, IPv6 included", () => {
    expect(loginPairKey("2001:db8::1", "a/b@example.com")).toBe("2001:db8::1/a/b@example.com");
  });
});
