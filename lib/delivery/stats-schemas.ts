import { z } from "zod";

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const MAX_BUCKETS = 1000;

/** "30s", "5m", "1h", "1d" → seconds. */
export function parseBucket(spec: string): number | null {
  const m = /^(\d{1,4})([smhd])$/.exec(spec);
  if (!m) return null;
  return Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
}

const NICE_BUCKETS = [10, 30, 60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400];

/** The smallest round bucket that splits the window into at most ~`target` points. */
export function autoBucketSeconds(windowMs: number, target = 60): number {
  const wanted = windowMs / 1000 / target;
  return NICE_BUCKETS.find((b) => b >= wanted) ?? Math.ceil(wanted / 86400) * 86400;
}

export const deliveryStatsQuery = z
  .object({
    destinationId: z.uuid("Use a destination id").optional(),
    from: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    to: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    bucket: z.string().refine((b) => (parseBucket(b) ?? 0) >= 10, "Use a bucket like 30s, 5m, 1h or 1d (at least 10s)").optional(),
  })
  .transform((q, ctx) => {
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 86_400_000);
    if (from >= to) ctx.addIssue({ code: "custom", path: ["from"], message: "from must be before to" });
    const bucketSeconds = q.bucket ? parseBucket(q.bucket)! : autoBucketSeconds(to.getTime() - from.getTime());
    if ((to.getTime() - from.getTime()) / 1000 / bucketSeconds > MAX_BUCKETS) {
      ctx.addIssue({ code: "custom", path: ["bucket"], message: `At most ${MAX_BUCKETS} buckets: use a larger bucket or a shorter range` });
    }
    return { destinationId: q.destinationId, from, to, bucketSeconds };
  });

export const destinationStatsQuery = z
  .object({
    from: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    to: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
  })
  .transform((q) => {
    const to = q.to ? new Date(q.to) : new Date();
    return { from: q.from ? new Date(q.from) : new Date(to.getTime() - 86_400_000), to };
  });

export type DeliveryStatsQuery = z.infer<typeof deliveryStatsQuery>;

export type StatsRow = {
  total: number;
  success: number;
  retry: number;
  failed: number;
  /** success / total attempts, 0–1; null when there were none. */
  successRate: number | null;
  /** Attempt durations in ms; null when there were none. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
};

export type DeliveryStatsDto = {
  destinationId: string | null;
  from: string;
  to: string;
  bucketSeconds: number;
  totals: StatsRow;
  series: (StatsRow & { start: string })[];
};

export type DestinationStatsDto = { destinationId: string; total: number; success: number; retry: number; failed: number; successRate: number | null };
