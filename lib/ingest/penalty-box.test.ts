import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PenaltyBox } from "./penalty-box";

describe("PenaltyBox", () => {
  it("boxes an address from its strike for ms, each strike extending it; 0 ms never boxes", () => {
    const box = new PenaltyBox(1_000);
    expect(box.boxed("a", 0)).toBe(false);
    expect(box.empty).toBe(true);
    box.strike("a", 100);
    expect(box.empty).toBe(false);
    expect([box.boxed("a", 100), box.boxed("a", 1_099), box.boxed("b", 500)]).toEqual([true, true, false]);
    expect(box.secondsLeft("a", 150)).toBe(1);
    box.strike("a", 1_000);
    expect([box.boxed("a", 1_999), box.boxed("a", 2_000)]).toEqual([true, false]);
    const off = new PenaltyBox(0);
    off.strike("a", 0);
    expect(off.boxed("a", 0)).toBe(false);
    expect(off.empty).toBe(true);
  });

  it("agrees with a model over generated strikes and checks, the oldest strike forgotten past the cap", () => {
    const op = fc.record({ strike: fc.boolean(), address: fc.constantFrom("a", "b", "c", "d", "e"), dt: fc.nat(400) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const box = new PenaltyBox(1_000, 3);
        // The model: every strike's expiry, and the cap applied to the addresses ordered by last strike.
        const until = new Map<string, number>();
        let now = 0;
        for (const o of ops) {
          now += o.dt;
          if (o.strike) {
            box.strike(o.address, now);
            until.delete(o.address);
            until.set(o.address, now + 1_000);
            if (until.size > 3) until.delete([...until.keys()][0]);
          } else {
            const expected = (until.get(o.address) ?? 0) > now;
            if (!expected) until.delete(o.address);
            expect(box.boxed(o.address, now)).toBe(expected);
          }
        }
      }),
      { seed: 48, numRuns: 500 },
    );
  });
});
