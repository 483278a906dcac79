import { useQuery } from "@tanstack/react-query";
import { requestLogRoutes } from "@/lib/request-log/routes";
import type { DestinationStatsDto } from "@/lib/request-log/contract";
import { call } from "@/components/data/api-client";

/** Delivery statistics (/api/stats/*): the overview's charts and the destinations' 24-hour figures. */
export const RANGES = {
  "1h": { label: "Last hour", ms: 3600_000, bucket: "1m" },
  "24h": { label: "Last 24 hours", ms: 86_400_000, bucket: "30m" },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000, bucket: "3h" },
} as const;
export type RangeKey = keyof typeof RANGES;

export const statsKeys = {
  all: ["stats"] as const,
  deliveries: (range: RangeKey, destinationId: string | null) => [...statsKeys.all, "deliveries", range, destinationId] as const,
  perDestination: (range: RangeKey) => [...statsKeys.all, "per-destination", range] as const,
  /** Attempt volume and success rate per destination over the last 24 h, by destination id. */
  perDestination24h: () => [...statsKeys.all, "per-destination-24h"] as const,
};

/** How often the figures refresh while on screen. */
const REFRESH_MS = 30_000;

/** The window ends now and is aligned to whole buckets, so bars do not shift by seconds on refresh. */
export function rangeWindow(range: RangeKey) {
  const r = RANGES[range];
  const step = r.ms / 60 >= 3600_000 ? 3600_000 : 60_000;
  const to = Math.ceil(Date.now() / step) * step;
  return { from: new Date(to - r.ms).toISOString(), to: new Date(to).toISOString() };
}

export function fetchDeliveryStats(range: RangeKey, destinationId: string | null, signal?: AbortSignal) {
  const query = { ...rangeWindow(range), bucket: RANGES[range].bucket, destinationId: destinationId ?? undefined };
  return call(requestLogRoutes.deliveryStats, { query, signal });
}

export function fetchPerDestinationStats(range: RangeKey, signal?: AbortSignal) {
  return call(requestLogRoutes.destinationStats, { query: rangeWindow(range), signal }).then((r) => r.destinations);
}

/** The 24-hour figures as the cache holds them: by destination id (the server's prefetch builds the same). */
export const statsByDestination = (destinations: DestinationStatsDto[]) =>
  Object.fromEntries(destinations.map((d) => [d.destinationId, d])) as Record<string, DestinationStatsDto | undefined>;

export const fetchPerDestinationStats24h = (signal?: AbortSignal) =>
  call(requestLogRoutes.destinationStats, { signal }).then((r) => statsByDestination(r.destinations));

export function useDeliveryStats(range: RangeKey, destinationId: string | null) {
  return useQuery({
    queryKey: statsKeys.deliveries(range, destinationId),
    queryFn: ({ signal }) => fetchDeliveryStats(range, destinationId, signal),
    refetchInterval: REFRESH_MS,
    // Switching range or destination keeps the old charts up until the new ones arrive.
    placeholderData: (prev) => prev,
  });
}

export function usePerDestinationStats(range: RangeKey) {
  return useQuery({
    queryKey: statsKeys.perDestination(range),
    queryFn: ({ signal }) => fetchPerDestinationStats(range, signal),
    refetchInterval: REFRESH_MS,
  });
}

export function usePerDestinationStats24h() {
  return useQuery({
    queryKey: statsKeys.perDestination24h(),
    queryFn: ({ signal }) => fetchPerDestinationStats24h(signal),
    refetchInterval: REFRESH_MS,
  });
}
