import "server-only";
import type { AttemptRow, DeliveryUpdate } from "../delivery/record";
import { metrics } from "./counters";

/** Delivery counts, taken after a batch's attempts and delivery states were recorded (committed). */
export function observeDeliveryBatch(
  attempts: AttemptRow[],
  updates: DeliveryUpdate[],
  destinationOf: (deliveryId: string) => string | undefined,
): void {
  const m = metrics();
  for (const a of attempts) {
    m.attempts.inc({ destination: a.destination_id, outcome: a.outcome });
    m.attemptDuration.observe({ destination: a.destination_id }, a.duration_ms / 1000);
  }
  for (const u of updates) {
    if (u.state === "pending") continue;
    m.deliveries.inc({ destination: destinationOf(u.id) ?? "unknown", state: u.state });
  }
}
