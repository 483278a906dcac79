import type { AudienceDto, AudienceMemberDto, AudienceSyncDto } from "@/lib/audiences/schemas";
import type { SourceDto } from "@/lib/sources/schemas";
import type { Condition } from "@/lib/audiences/condition";
import { ApiError, api } from "@/lib/client/api";

export const audienceKeys = {
  all: ["audiences"] as const,
  list: () => [...audienceKeys.all, "list"] as const,
  detail: (id: string) => [...audienceKeys.all, "detail", id] as const,
  syncs: (id: string) => [...audienceKeys.all, "detail", id, "syncs"] as const,
  members: (id: string, q: string) => [...audienceKeys.all, "detail", id, "members", q] as const,
  preview: (condition: Condition | null, sourceIds: string[]) => [...audienceKeys.all, "preview", condition, sourceIds] as const,
};

/** The destinations feature's list key (its own factory lives on its branch; same key, same cache). */
export const destinationOptionKeys = { list: () => ["destinations", "list"] as const };

/** What the builder needs to know of a destination (the destinations feature owns the full shape). */
export type DestinationOption = { id: string; name: string; enabled: boolean; urls?: string[] };

export const fetchAudiences = (signal?: AbortSignal) => api<{ audiences: AudienceDto[] }>("/api/audiences", { signal }).then((r) => r.audiences);
export const fetchAudience = (id: string, signal?: AbortSignal) => api<AudienceDto>(`/api/audiences/${id}`, { signal });
export const fetchSyncs = (id: string, signal?: AbortSignal) => api<{ syncs: AudienceSyncDto[] }>(`/api/audiences/${id}/syncs`, { signal }).then((r) => r.syncs);
export const fetchMembers = (id: string, q: string, cursor: string | undefined, signal?: AbortSignal) => {
  const params = new URLSearchParams({ limit: "50", ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) });
  return api<{ members: AudienceMemberDto[]; nextCursor: string | null }>(`/api/audiences/${id}/members?${params}`, { signal });
};
export const fetchPreview = (condition: Condition, sourceIds: string[], signal?: AbortSignal) =>
  api<{ count: number }>("/api/audiences/preview", { method: "POST", body: { condition, sourceIds }, signal });
export const fetchSourceOptions = (signal?: AbortSignal) => api<{ sources: SourceDto[] }>("/api/sources", { signal }).then((r) => r.sources);
export const fetchDestinationOptions = (signal?: AbortSignal) =>
  api<{ destinations: DestinationOption[] }>("/api/destinations", { signal })
    .then((r) => r.destinations)
    // Installs without the destinations API yet have none to offer.
    .catch((err) => {
      if (err instanceof ApiError && err.status === 404) return [] as DestinationOption[];
      throw err;
    });

/** A sync still in progress: the pages poll while one is. */
export const isActive = (s: AudienceSyncDto | null | undefined) => s?.status === "queued" || s?.status === "running";
