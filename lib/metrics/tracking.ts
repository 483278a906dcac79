import { metrics } from "./counters";
import { startMetricsPush } from "./push";

/** Tracking API counts, taken in the ingest path once a request's outcome is known (committed). */
export function countTrackedMessages(opts: { sourceId: string; accepted: { type: string }[]; rejected: { type: string | null }[]; duplicates: number }): void {
  startMetricsPush("web");
  const m = metrics();
  const byType = (list: { type: string | null }[]) => {
    const counts = new Map<string, number>();
    for (const x of list) counts.set(x.type ?? "unknown", (counts.get(x.type ?? "unknown") ?? 0) + 1);
    return counts;
  };
  for (const [type, n] of byType(opts.accepted)) m.trackingMessages.inc({ source: opts.sourceId, type, result: "accepted" }, n);
  for (const [type, n] of byType(opts.rejected)) m.trackingMessages.inc({ source: opts.sourceId, type, result: "rejected" }, n);
  if (opts.duplicates > 0) m.trackingDuplicates.inc({ source: opts.sourceId }, opts.duplicates);
}

export function countTrackingRequest(endpoint: string, status: number): void {
  startMetricsPush("web");
  metrics().trackingRequests.inc({ endpoint, status: String(status) });
}
