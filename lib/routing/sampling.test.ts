import { describe, expect, it } from "vitest";
import { sampleBucket, sampledIn } from "./sampling";

describe("sampledIn", () => {
  it("gives the same answer for the same messageId, every time", () => {
    for (let i = 0; i < 200; i++) expect(sampledIn(`m-${i}`, 30)).toBe(sampledIn(`m-${i}`, 30));
    expect(sampleBucket("abc")).toBe(sampleBucket("abc"));
  });
  it("takes about the share asked for, and everything at 100 %", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `msg-${i}`);
    const taken = ids.filter((id) => sampledIn(id, 25)).length;
    expect(taken).toBeGreaterThan(2_300);
    expect(taken).toBeLessThan(2_700);
    expect(ids.every((id) => sampledIn(id, 100))).toBe(true);
  });
  it("keeps a call sampled in when the rate goes up", () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `id-${i}`);
    for (const id of ids.filter((x) => sampledIn(x, 10))) expect(sampledIn(id, 50)).toBe(true);
  });
});
