import { describe, expect, it } from "vitest";
import { baseline, lowerMedian, type PhaseResult, summarisePhases } from "./abuse-summary";

const wal = { commits: 0, fsyncs: 0, kb: 0 };
const quiet = (p50: number, p99: number) => ({ v1: { p50, p99, n: 1000 }, cpu: {}, wal });
const phase = (name: string, p50: number, p99: number, healthMaxMs = 10, healthFailed = 0): PhaseResult => ({
  name,
  v1: { p50, p99, n: 1000 },
  healthMaxMs,
  healthFailed,
  tallies: {},
  cpu: {},
  wal,
});

describe("the abuse drill's summary", () => {
  it("takes the lower middle as the baseline: the lower of two quiet phases, the median of more", () => {
    expect(lowerMedian([11, 7])).toBe(7);
    expect(lowerMedian([10, 6, 7, 6])).toBe(6);
    expect(lowerMedian([9, 30, 8])).toBe(9);
    expect(baseline([quiet(4, 10), quiet(3, 6), quiet(4, 7)])).toEqual({ p50: 4, p99: 7 });
  });

  it("sums each phase over its rounds: the upper middle of its p99s, the worst /api/health", () => {
    const s = summarisePhases([
      phase("slow", 3, 9),
      phase("all at once", 4, 17, 44),
      phase("slow", 4, 12),
      phase("all at once", 5, 40, 136, 1),
      phase("slow", 3, 8),
      phase("all at once", 4, 15, 35),
    ]);
    expect(s).toEqual([
      { name: "slow", p50: 3, p99: 9, p99s: [9, 12, 8], healthMaxMs: 10, healthFailed: 0 },
      { name: "all at once", p50: 4, p99: 17, p99s: [17, 40, 15], healthMaxMs: 136, healthFailed: 1 },
    ]);
    // Of two rounds, the higher p99: an even count errs against the attack's ratio.
    expect(summarisePhases([phase("idle", 3, 9), phase("idle", 3, 13)])[0].p99).toBe(13);
  });
});
