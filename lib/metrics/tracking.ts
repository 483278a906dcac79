import "server-only";
import { rejectionCategory, type RejectionCategory } from "../tracking/rejection-category";
import { metrics } from "./counters";
import { violationEventLabel, type PlanVerdict } from "../tracking/plan-check";

/** Tracking API counts, taken in the ingest path once a request's outcome is known (committed). */
export function countTrackedMessages(opts: {
  sourceId: string;
  accepted: { type: string }[];
  rejected: { type: string | null; reason: string }[];
  duplicates: number;
}): void {
  const m = metrics();
  const byType = (list: { type: string | null }[]) => {
    const counts = new Map<string, number>();
    for (const x of list) counts.set(x.type ?? "unknown", (counts.get(x.type ?? "unknown") ?? 0) + 1);
    return counts;
  };
  for (const [type, n] of byType(opts.accepted)) m.trackingMessages.inc({ source: opts.sourceId, type, result: "accepted" }, n);
  for (const [type, n] of byType(opts.rejected)) m.trackingMessages.inc({ source: opts.sourceId, type, result: "rejected" }, n);
  if (opts.duplicates > 0) m.trackingDuplicates.inc({ source: opts.sourceId }, opts.duplicates);
  countRejections(
    opts.sourceId,
    opts.rejected.map((r) => rejectionCategory(r.reason)),
  );
}

/** Each violation of a stored message (docs/tracking-plans.md#violations); the event label is bounded by the plan. */
export function countViolations(
  sourceId: string,
  judged: { message: { type: string; event: string | null }; verdict: PlanVerdict }[],
): void {
  for (const { message, verdict } of judged) {
    const event = violationEventLabel(message, verdict);
    for (const v of verdict.violations) metrics().trackingViolations.inc({ source: sourceId, event, rule: v.rule });
  }
}

/** Rejections by reason category: a bounded label, never the reason's text (docs/operations.md#metrics). */
export function countRejections(sourceId: string, categories: RejectionCategory[]): void {
  const counts = new Map<RejectionCategory, number>();
  for (const c of categories) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const [reason, n] of counts) metrics().trackingRejections.inc({ source: sourceId, reason }, n);
}

export function countTrackingRequest(endpoint: string, status: number, seconds: number): void {
  const m = metrics();
  m.trackingRequests.inc({ endpoint, status: String(status) });
  m.trackingDuration.observe({ endpoint }, seconds);
}
