/**
 * The abuse drill's numbers summed up over its rounds (scripts/drill/abuse.ts): the quiet baseline and
 * each phase's median, both on the strict side when the count is even.
 */
import type { Attack, Tally } from "./attacks";

export type Latency = { p50: number; p99: number; n: number };
export type PhaseResult = {
  name: string;
  v1: Latency;
  healthMaxMs: number;
  healthFailed: number;
  tallies: Partial<Record<Attack, Tally>>;
  /** Each product process's CPU over the measured part of the phase, in % of one core. */
  cpu: Record<string, number>;
  wal: WalRates;
};
/** Postgres's commits, WAL flushes and KB of WAL, a second. */
export type WalRates = { commits: number; fsyncs: number; kb: number };
/** A quiet phase: the load alone. */
export type QuietResult = { v1: Latency; cpu: Record<string, number>; wal: WalRates };
/** The lower middle of some numbers (of two: the lower), so that an even count errs on the strict side. */
export const lowerMedian = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * The ratios' baseline: the median p99 (and p50) of the quiet phases, one per round and one after
 * the last; with the two of a one-round run, the lower.
 */
export const baseline = (quiets: QuietResult[]): Pick<Latency, "p50" | "p99"> => ({
  p50: lowerMedian(quiets.map((q) => q.v1.p50)),
  p99: lowerMedian(quiets.map((q) => q.v1.p99)),
});

/** One phase's rounds, summed up: the medians of their p50s and p99s (of an even count the higher, so that the ratio errs on the strict side too). */
export type PhaseSummary = { name: string; p50: number; p99: number; p99s: number[]; healthMaxMs: number; healthFailed: number };
export function summarisePhases(phases: PhaseResult[]): PhaseSummary[] {
  const byName = new Map<string, PhaseResult[]>();
  for (const p of phases) byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  const upperMedian = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return [...byName].map(([name, runs]) => ({
    name,
    p50: upperMedian(runs.map((r) => r.v1.p50)),
    p99: upperMedian(runs.map((r) => r.v1.p99)),
    p99s: runs.map((r) => r.v1.p99),
    healthMaxMs: Math.max(...runs.map((r) => r.healthMaxMs)),
    healthFailed: runs.reduce((n, r) => n + r.healthFailed, 0),
  }));
}
