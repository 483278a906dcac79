import { describe, expect, it } from "vitest";
import { timeLeft } from "./key-rotation";

describe("timeLeft", () => {
  it("counts down to the second, leaving out leading zero units", () => {
    expect(timeLeft(59 * 60_000 + 58_400)).toBe("59 min 58 s");
    expect(timeLeft(7 * 86_400_000)).toBe("7 d 0 h 0 min 0 s");
    expect(timeLeft(3_600_000 + 1_000)).toBe("1 h 0 min 1 s");
    expect(timeLeft(999)).toBe("0 s");
    expect(timeLeft(-5_000)).toBe("0 s");
  });
});
