import type { DeletionDetailDto, DeletionSummaryDto } from "@/lib/deletions/schemas";
import { api } from "@/lib/client/api";

export const deletionKeys = {
  all: ["deletions"] as const,
  list: () => [...deletionKeys.all, "list"] as const,
  detail: (id: string) => [...deletionKeys.all, "detail", id] as const,
};

export const fetchDeletions = (signal?: AbortSignal) =>
  api<{ deletions: DeletionSummaryDto[]; nextCursor: string | null }>("/api/deletions?limit=100", { signal }).then((r) => r.deletions);
export const fetchDeletion = (id: string, signal?: AbortSignal) => api<DeletionDetailDto>(`/api/deletions/${id}`, { signal });
export const createDeletion = (userIds: string[]) => api<DeletionSummaryDto>("/api/deletions", { method: "POST", body: { userIds } });

/** Requests the worker has not finished: pages poll while they are on screen. */
export const isActive = (status: string) => status === "pending" || status === "running";
/** How often live pages refetch. */
export const LIVE_MS = 1500;
