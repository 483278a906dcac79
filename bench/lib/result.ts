/**
 * What every bench shares about its answer: one `median`, and the one result line it prints last,
 *   RESULT <name> ratio=<ours / ceiling> key=value … load=<1-minute load average>
 * where `ratio` compares our throughput with the ceiling's, measured in the same run (for costs, the
 * ceiling's cost over ours): 1 is as good as the ceiling, lower is worse (bench/README.md).
 */
import os from "node:os";

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The ratio of two throughputs (ours first); for two costs pass them as `ceiling / ours` instead. */
export const throughputRatio = (ours: number, ceiling: number): number => ours / ceiling;
export const costRatio = (ours: number, ceiling: number): number => ceiling / ours;

export function printResult(name: string, ratio: number | null, fields: Record<string, string | number> = {}): void {
  const rest = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === "number" ? round(v) : v}`);
  const load = os.loadavg()[0].toFixed(1);
  console.log(
    ["RESULT", name, `ratio=${ratio === null || !Number.isFinite(ratio) ? "-" : ratio.toFixed(2)}`, ...rest, `load=${load}`].join(" "),
  );
}

const round = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2));

/** Runs a bench's main and exits: 0 when it printed its result, 1 with the error otherwise. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
