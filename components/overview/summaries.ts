import type { DeliveryStatsDto } from "@/lib/request-log/contract";
import { formatMs, formatRate, plural } from "@/components/ui/format";

/** "5 minutes", "1 hour", "1 day": the width of one bar. */
export function bucketWords(seconds: number): string {
  if (seconds % 86400 === 0) return plural(seconds / 86400, "day");
  if (seconds % 3600 === 0) return plural(seconds / 3600, "hour");
  if (seconds % 60 === 0) return plural(seconds / 60, "minute");
  return plural(seconds, "second");
}

/** Each chart's accessible name: what it shows and what its data says, in one sentence. */
export function summariseVolume(s: DeliveryStatsDto): string {
  const t = s.totals;
  return `Bar chart of attempts by outcome, one bar per ${bucketWords(s.bucketSeconds)}: ${plural(t.total, "attempt")} in total, ${t.success.toLocaleString("en-US")} successful, ${t.retry.toLocaleString("en-US")} retrying, ${t.failed.toLocaleString("en-US")} failed.`;
}

export function summariseSuccess(s: DeliveryStatsDto): string {
  const rates = s.series.flatMap((b) => (b.successRate == null ? [] : [b.successRate]));
  const lowest = rates.length ? Math.min(...rates) : null;
  return `Area chart of the success rate per ${bucketWords(s.bucketSeconds)}: ${formatRate(s.totals.successRate)} overall${lowest == null ? "" : `, lowest ${formatRate(lowest)}`}.`;
}

export function summariseLatency(s: DeliveryStatsDto): string {
  const t = s.totals;
  return `Line chart of attempt latency per ${bucketWords(s.bucketSeconds)}: p50 ${formatMs(t.p50)}, p95 ${formatMs(t.p95)}, p99 ${formatMs(t.p99)} overall.`;
}
