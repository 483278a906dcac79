import type { DeliveryStatsDto, DestinationStatsDto } from "@/lib/delivery/stats-schemas";
import { api } from "@/lib/client/api";

export const RANGES = {
  "1h": { label: "Last hour", ms: 3600_000, bucket: "1m" },
  "24h": { label: "Last 24 hours", ms: 86_400_000, bucket: "30m" },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000, bucket: "3h" },
} as const;
export type RangeKey = keyof typeof RANGES;

export const overviewKeys = {
  all: ["stats"] as const,
  deliveries: (range: RangeKey, destinationId: string | null) => [...overviewKeys.all, "deliveries", range, destinationId] as const,
  perDestination: (range: RangeKey) => [...overviewKeys.all, "per-destination", range] as const,
};

/** The window ends now and is aligned to whole buckets, so bars do not shift by seconds on refresh. */
function window(range: RangeKey) {
  const r = RANGES[range];
  const step = r.ms / 60 >= 3600_000 ? 3600_000 : 60_000;
  const to = Math.ceil(Date.now() / step) * step;
  return { from: new Date(to - r.ms).toISOString(), to: new Date(to).toISOString() };
}

export function fetchDeliveryStats(range: RangeKey, destinationId: string | null, signal?: AbortSignal) {
  const q = new URLSearchParams({ ...window(range), bucket: RANGES[range].bucket });
  if (destinationId) q.set("destinationId", destinationId);
  return api<DeliveryStatsDto>(`/api/stats/deliveries?${q}`, { signal });
}

export function fetchPerDestinationStats(range: RangeKey, signal?: AbortSignal) {
  return api<{ destinations: DestinationStatsDto[] }>(`/api/stats/destinations?${new URLSearchParams(window(range))}`, { signal }).then((r) => r.destinations);
}
