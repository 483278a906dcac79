import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { audienceRoutes } from "@/lib/audiences/routes";
import type { AudienceDto, AudienceSyncDto, CreateAudienceInput, UpdateAudienceInput } from "@/lib/audiences/contract";
import type { Condition } from "@/lib/audiences/condition";
import { call } from "@/components/data/api-client";

/** Audiences (/api/audiences): definitions, their syncs, their members, and the builder's live preview. */
export const audienceKeys = {
  all: ["audiences"] as const,
  list: () => [...audienceKeys.all, "list"] as const,
  detail: (id: string) => [...audienceKeys.all, "detail", id] as const,
  syncs: (id: string) => [...audienceKeys.all, "detail", id, "syncs"] as const,
  members: (id: string, q: string) => [...audienceKeys.all, "detail", id, "members", q] as const,
  preview: (condition: Condition | null, sourceIds: string[]) => [...audienceKeys.all, "preview", condition, sourceIds] as const,
};

/** A sync still in progress: the pages poll while one is. */
export const isActive = (s: AudienceSyncDto | null | undefined) => s?.status === "queued" || s?.status === "running";

export const fetchAudiences = (signal?: AbortSignal) => call(audienceRoutes.list, { signal }).then((r) => r.audiences);
export const fetchAudience = (id: string, signal?: AbortSignal) => call(audienceRoutes.get, { params: { id }, signal });
export const fetchSyncs = (id: string, signal?: AbortSignal) => call(audienceRoutes.syncs, { params: { id }, signal }).then((r) => r.syncs);
/** An empty `q` and the first page's missing cursor stay off the query string. */
export const fetchMembers = (id: string, q: string, cursor: string | undefined, signal?: AbortSignal) =>
  call(audienceRoutes.members, { params: { id }, query: { limit: 50, q, cursor }, signal });
export const fetchPreview = (condition: Condition, sourceIds: string[], signal?: AbortSignal) =>
  call(audienceRoutes.preview, { body: { condition, sourceIds }, signal });

export function useAudiences() {
  return useQuery({
    queryKey: audienceKeys.list(),
    queryFn: ({ signal }) => fetchAudiences(signal),
    // Sizes and last syncs move while a sync runs.
    refetchInterval: (q) => (q.state.data?.some((a) => isActive(a.lastSync)) ? 2_000 : false),
  });
}

export function useAudience(id: string, { live = false }: { live?: boolean } = {}) {
  return useQuery({
    queryKey: audienceKeys.detail(id),
    queryFn: ({ signal }) => fetchAudience(id, signal),
    refetchInterval: live ? (q) => (isActive(q.state.data?.lastSync) ? 1_000 : false) : false,
  });
}

export function useAudienceSyncs(id: string) {
  return useQuery({
    queryKey: audienceKeys.syncs(id),
    queryFn: ({ signal }) => fetchSyncs(id, signal),
    refetchInterval: (q) => (q.state.data?.some(isActive) ? 1_000 : false),
  });
}

/** Members as of the last sync matching `q` (userId or email), 50 at a time. */
export function useAudienceMembers(id: string, q: string) {
  return useInfiniteQuery({
    queryKey: audienceKeys.members(id, q),
    queryFn: ({ pageParam, signal }) => fetchMembers(id, q, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** How many users match the condition now; runs only for a complete condition and at least one source. */
export function useAudiencePreview(condition: Condition | null, sourceIds: string[]) {
  return useQuery({
    queryKey: audienceKeys.preview(condition, sourceIds),
    queryFn: ({ signal }) => fetchPreview(condition!, sourceIds, signal),
    enabled: condition !== null && sourceIds.length > 0,
    staleTime: 10_000,
  });
}

/** A saved audience replaces its detail entry; the list refetches. */
function useAudienceSaved() {
  const qc = useQueryClient();
  return (a: AudienceDto) => {
    qc.setQueryData(audienceKeys.detail(a.id), a);
    return qc.invalidateQueries({ queryKey: audienceKeys.list() });
  };
}

/** Creating an audience starts its first sync. */
export function useCreateAudienceMutation() {
  const saved = useAudienceSaved();
  return useMutation({
    mutationFn: (input: CreateAudienceInput) => call(audienceRoutes.create, { body: input }),
    onSuccess: saved,
  });
}

export function useUpdateAudienceMutation() {
  const saved = useAudienceSaved();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UpdateAudienceInput }) => call(audienceRoutes.update, { params: { id }, body: patch }),
    onSuccess: saved,
  });
}

/** Queues a sync (or answers the one already queued or running). */
export function useSyncAudienceMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(audienceRoutes.sync, { params: { id } }),
    // The detail's prefix covers its sync history, which gains the new sync.
    onSuccess: (_, id) =>
      Promise.all([qc.invalidateQueries({ queryKey: audienceKeys.detail(id) }), qc.invalidateQueries({ queryKey: audienceKeys.list() })]),
  });
}

export function useDeleteAudienceMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(audienceRoutes.remove, { params: { id } }),
    onSuccess: (_, id) => {
      qc.removeQueries({ queryKey: audienceKeys.detail(id) });
      return qc.invalidateQueries({ queryKey: audienceKeys.list() });
    },
  });
}
