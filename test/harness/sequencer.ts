import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The integration files that take longest, longest first, as measured (docs/decisions/0154-ci-time.md).
 * They start first, so that the stage's workers are not left with one of them at the end: on a clean
 * clone vitest has no durations cached and starts the largest files first, which started
 * `delivery-rate-limits` (a small file, and the longest) 243 s into a 667 s stage.
 * A file not listed runs after these, in vitest's own order; a file that grows slow belongs here
 * (round 7: `delivery-pg-restart`, 38 s and not listed, started last and ran alone for most of it).
 */
export const SLOW_FILES = [
  "test/delivery-rate-limits.int.test.ts",
  "test/delivery.int.test.ts",
  "test/security/throttling.int.test.ts",
  "test/cross-feature.int.test.ts",
  "test/batch-claims.int.test.ts",
  "test/delivery-faults.int.test.ts",
  "test/backfills.int.test.ts",
  "test/graceful-shutdown.int.test.ts",
  "test/start.int.test.ts",
  "test/ordering.int.test.ts",
  "test/delivery-pg-restart.int.test.ts",
  "test/delivery-interrupted.int.test.ts",
  "test/audiences.int.test.ts",
  "test/delivery-lanes.int.test.ts",
  "test/batching.int.test.ts",
  "test/security/route-table.int.test.ts",
  "test/endpoint-auth.int.test.ts",
  "test/security/capture-bins.int.test.ts",
  "test/alerts.int.test.ts",
  "test/migrations.int.test.ts",
  "test/ops-metrics.int.test.ts",
  "test/sdk.int.test.ts",
];

/** Vitest's order (projects, then cached durations or file size), with the slow files moved to the front. */
export default class SlowFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FILES.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i === -1 ? SLOW_FILES.length : i;
    };
    const projectOrder = new Map<string, number>();
    for (const f of sorted) if (!projectOrder.has(f.project.name)) projectOrder.set(f.project.name, projectOrder.size);
    // Stable: projects keep their order; within one, listed files first, the rest as vitest put them.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => projectOrder.get(a.f.project.name)! - projectOrder.get(b.f.project.name)! || rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
