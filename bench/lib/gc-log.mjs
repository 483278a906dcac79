// Preload (node --import) that prints each garbage collection of 1 ms or more as
// "[gc] <epoch ms at its start> <duration ms> <kind>" on stdout: bench/latency-trace.ts reads them.
import { PerformanceObserver, constants } from "node:perf_hooks";

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (e.duration >= 1)
      process.stdout.write(
        `[gc] ${Math.round(performance.timeOrigin + e.startTime)} ${e.duration.toFixed(1)} ${KINDS[e.detail?.kind] ?? "?"}\n`,
      );
}).observe({ entryTypes: ["gc"] });
