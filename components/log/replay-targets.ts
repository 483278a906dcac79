import type { MessageDetailDto } from "@/lib/request-log/contract";

type Delivery = MessageDetailDto["deliveries"][number];

/**
 * What replaying one message would send (docs/webhooks.md#replay), as the API decides it: per
 * destination, the latest delivery of its chain (the original or its latest replay). By default
 * only the destinations where that one failed; with `everywhere`, the delivered ones too. A
 * destination still being delivered is never replayed.
 */
export function replayTargets(deliveries: Delivery[], everywhere: boolean): Delivery[] {
  const latest = new Map<string, Delivery>();
  for (const d of deliveries) {
    const seen = latest.get(d.destinationId);
    if (!seen || d.replayNumber > seen.replayNumber) latest.set(d.destinationId, d);
  }
  return [...latest.values()].filter((d) => d.state === "failed" || (everywhere && d.state === "delivered"));
}
