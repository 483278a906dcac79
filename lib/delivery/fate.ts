import "server-only";
import { shapeRequest } from "../webhooks/request-shape";
import type { LoadedDelivery } from "./load";

/**
 * The plan of a fetched delivery (docs/architecture.md#one-plan): what this job does with it, decided
 * once, right after the load, by one pure function; the steps after it — the ordering gate
 * (order.ts), batching (batches.ts), the rate limit (policy.ts admitDeliveries) and the round
 * (round.ts) — obey it and never ask again.
 *
 * - `end`: it ends now without a request, with `reason`, and takes nothing on its way: no gate, no
 *   batch, no rate-limit token or lease (an end always comes before a throttle).
 * - `join`: a batching destination's new delivery joins its destination's batch with `part`, its body
 *   (request-shape.ts): nothing is sent for it by this job unless its join fills a batch, which it
 *   then leads.
 * - `batch`: it is in a batch already; the batch goes when its lead's job claims it, and every member
 *   takes the lead's round. `end` set: that round ends the batch unsent, with that reason.
 * - `alone`: one round of its own.
 *
 * `ordered`: the ordering gate judges it first (docs/webhooks.md#ordering) and may hold it.
 * `limited`: it takes its destination's rate limit when it is sent (docs/webhooks.md#rate-limits)
 * and may be throttled. Held and throttled are the two outcomes the plan leaves to those statements.
 */
export type Plan = { ordered: boolean; limited: boolean } & (
  | { go: "end"; reason: string }
  | { go: "join"; part: string }
  | { go: "batch"; end: string | null }
  | { go: "alone" }
);

/** What the plan reads of a loaded delivery. */
export type PlanFacts = Pick<
  LoadedDelivery,
  "erased" | "test" | "targetUrls" | "pendingUrls" | "batchId" | "orderKey" | "holdReleased" | "message" | "destination"
>;

export function planDelivery(d: PlanFacts): Plan {
  const reason = endsUnsent(d);
  if (d.batchId !== null) {
    // A batch already joined goes as a batch, even if its destination stopped batching since: its
    // members wait on its lead, and a member passed the gate when it joined.
    return { go: "batch", end: reason, ordered: false, limited: reason === null && limitedBy(d) };
  }
  if (reason !== null) return { go: "end", reason, ordered: false, limited: false };
  const ordered = d.orderKey !== null && d.destination.ordering === "perUser" && !d.holdReleased;
  const limited = limitedBy(d);
  // A test-send, a replay for named URLs and a body whose URL template fails go alone: the round
  // sends them (a test-send as a batch of one) or logs why not.
  if (d.destination.batch && !d.test && !d.targetUrls) {
    const shaped = shapeRequest(d.destination.shape, d.message, d.destination.urls, d.destination.fieldLists);
    if (!shaped.targets.some((t) => "error" in t)) return { go: "join", part: shaped.body, ordered, limited };
  }
  return { go: "alone", ordered, limited };
}

/** Why its round ends unsent (the plan's end, or its batch's), or null when it is sent. */
export function endOf(plan: Plan): string | null {
  return plan.go === "end" ? plan.reason : plan.go === "batch" ? plan.end : null;
}

/** A test-send is asked for by a person and goes; everything else counts against a limit its destination has. */
function limitedBy(d: PlanFacts): boolean {
  const { perSecond, concurrency } = d.destination.rateLimit;
  return !d.test && (perSecond !== null || concurrency !== null);
}

/**
 * Why it ends without a request: its message erased by a deletion request, its destination disabled,
 * or only URLs the endpoint alerts disabled left to send to (docs/alerts.md#disabling). A test-send
 * (targetUrls) tests the endpoint: it goes whatever the destination's state.
 */
function endsUnsent(d: PlanFacts): string | null {
  if (d.erased) return "message was erased by a deletion request";
  if (d.targetUrls) return null;
  if (!d.destination.enabled) return "destination is disabled";
  const pending = d.pendingUrls ?? [];
  const onlyDisabledLeft =
    d.destination.urls.length === 0 || (pending.length > 0 && pending.every((u) => d.destination.disabledUrls.includes(u)));
  return onlyDisabledLeft ? "the URLs it was for are disabled after failing for days" : null;
}
