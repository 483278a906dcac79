import type { DestinationDto } from "@/lib/destinations/schemas";
import type { DestinationStatsDto } from "@/lib/delivery/stats-schemas";
import { api } from "@/lib/client/api";

export const destinationKeys = {
  all: ["destinations"] as const,
  list: () => [...destinationKeys.all, "list"] as const,
  detail: (id: string) => [...destinationKeys.all, "detail", id] as const,
  /** Attempt volume and success rate per destination over the last 24 h. */
  stats24h: () => [...destinationKeys.all, "stats-24h"] as const,
};

export const fetchDestinations = (signal?: AbortSignal) =>
  api<{ destinations: DestinationDto[] }>("/api/destinations", { signal }).then((r) => r.destinations);
export const fetchDestination = (id: string, signal?: AbortSignal) => api<DestinationDto>(`/api/destinations/${id}`, { signal });
export const fetchDestinationStats24h = (signal?: AbortSignal) =>
  api<{ destinations: DestinationStatsDto[] }>("/api/stats/destinations", { signal }).then((r) =>
    Object.fromEntries(r.destinations.map((d) => [d.destinationId, d])) as Record<string, DestinationStatsDto | undefined>,
  );
