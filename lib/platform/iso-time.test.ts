import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time";

describe("isoTime", () => {
  it("is Date#toISOString for any time, asked once or again, past its capacity too", () => {
    fc.assert(
      fc.property(fc.array(fc.date({ noInvalidDate: true }), { minLength: 1, maxLength: 50 }), (dates) => {
        for (const d of [...dates, ...dates]) expect(isoTime(d)).toBe(d.toISOString());
      }),
      { numRuns: 200 },
    );
  });

  it("throws as toISOString does for an invalid date, and caches nothing for it", () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
