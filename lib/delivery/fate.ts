import "server-only";
import type { LoadedDelivery } from "./load";

/**
 * Why a fetched delivery ends this round without a request, or null when it is sent (or throttled):
 * its message erased by a deletion request, its destination disabled, or only URLs the endpoint
 * alerts disabled left to send to (docs/alerts.md#disabling). A test-send (targetUrls) tests the
 * endpoint: it goes whatever the destination's state. One answer for the rate limiter, which gives
 * such a delivery no turn (policy.ts admitDeliveries), and the round, which ends it with this reason
 * (round.ts sendRound) — the two once asked this separately and disagreed: a delivery whose URLs were
 * all disabled took rate-limit tokens, then failed unsent (docs/architecture.md#one-plan). Pure.
 */
export function endsUnsent(d: Pick<LoadedDelivery, "erased" | "targetUrls" | "pendingUrls" | "destination">): string | null {
  if (d.erased) return "message was erased by a deletion request";
  if (d.targetUrls) return null;
  if (!d.destination.enabled) return "destination is disabled";
  const pending = d.pendingUrls ?? [];
  const onlyDisabledLeft =
    d.destination.urls.length === 0 || (pending.length > 0 && pending.every((u) => d.destination.disabledUrls.includes(u)));
  return onlyDisabledLeft ? "the URLs it was for are disabled after failing for days" : null;
}
