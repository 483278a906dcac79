import "server-only";
import type { AttemptRow, DeliveryUpdate } from "../delivery/record";
import { metrics } from "./counters";

/** Delivery counts, taken after a batch's attempts and delivery states were recorded (committed). */
export function observeDeliveryBatch(
  attempts: AttemptRow[],
  updates: DeliveryUpdate[],
  destinationOf: (deliveryId: string) => string | undefined,
  /** a batch's other members by its lead's id: each ends as its lead does (lib/delivery/batches.ts) */
  members: Map<string, string[]> | null = null,
): void {
  const m = metrics();
  // Counted per label set and batch, and one histogram child per destination: labels are hashed
  // once per batch, not once per attempt (docs/webhooks.md#delivery-cost).
  const counts = new Map<string, { labels: Record<string, string>; n: number }>();
  const count = (labels: Record<string, string>, key: string, n = 1) => {
    const c = counts.get(key);
    if (c) c.n += n;
    else counts.set(key, { labels, n });
  };
  const durations = new Map<string, ReturnType<typeof m.attemptDuration.labels>>();
  for (const a of attempts) {
    count({ destination: a.destination_id, outcome: a.outcome }, `a ${a.destination_id} ${a.outcome}`);
    let h = durations.get(a.destination_id);
    if (!h) {
      h = m.attemptDuration.labels({ destination: a.destination_id });
      durations.set(a.destination_id, h);
    }
    h.observe(a.duration_ms / 1000);
  }
  const attemptCounts = [...counts.values()];
  counts.clear();
  for (const u of updates) {
    if (u.state === "pending") continue;
    const destination = destinationOf(u.id) ?? "unknown";
    count({ destination, state: u.state }, `d ${destination} ${u.state}`, 1 + (members?.get(u.id)?.length ?? 0));
  }
  for (const c of attemptCounts) m.attempts.inc(c.labels, c.n);
  for (const c of counts.values()) m.deliveries.inc(c.labels, c.n);
}
