import type { SourceDto } from "@/lib/sources/schemas";
import type { SourceEventDto } from "@/lib/tracking/debugger";
import { api } from "@/lib/client/api";

export const sourceKeys = {
  all: ["sources"] as const,
  list: () => [...sourceKeys.all, "list"] as const,
  detail: (id: string) => [...sourceKeys.all, "detail", id] as const,
  events: (id: string) => [...sourceKeys.all, "events", id] as const,
};

export const fetchSources = (signal?: AbortSignal) => api<{ sources: SourceDto[] }>("/api/sources", { signal }).then((r) => r.sources);
export const fetchSource = (id: string, signal?: AbortSignal) => api<SourceDto>(`/api/sources/${id}`, { signal });

export const fetchSourceEvents = (id: string, signal?: AbortSignal) =>
  api<{ events: SourceEventDto[] }>(`/api/sources/${id}/events?limit=100`, { signal }).then((r) => r.events);
