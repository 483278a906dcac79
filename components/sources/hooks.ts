import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { sourceRoutes } from "@/lib/sources/routes";
import type { SourceDto, UpdateSourceInput } from "@/lib/sources/contract";
import { call } from "@/components/data/api-client";

/** Sources: keys, fetchers and mutations of /api/sources (lib/sources/contract.ts). */
export const sourceKeys = {
  all: ["sources"] as const,
  list: () => [...sourceKeys.all, "list"] as const,
  detail: (id: string) => [...sourceKeys.all, "detail", id] as const,
  events: (id: string) => [...sourceKeys.all, "events", id] as const,
};

export const fetchSources = (signal?: AbortSignal) => call(sourceRoutes.list, { signal }).then((r) => r.sources);
export const fetchSource = (id: string, signal?: AbortSignal) => call(sourceRoutes.get, { params: { id }, signal });
export const fetchSourceEvents = (id: string, signal?: AbortSignal) =>
  call(sourceRoutes.events, { params: { id }, query: { limit: 100 }, signal }).then((r) => r.events);

/** Sources carry their health (recent rejections), so the list and the page refresh on their own. */
const HEALTH_REFRESH_MS = 10_000;

export function useSources() {
  return useQuery({ queryKey: sourceKeys.list(), queryFn: ({ signal }) => fetchSources(signal), refetchInterval: HEALTH_REFRESH_MS });
}

export function useSource(id: string) {
  return useQuery({
    queryKey: sourceKeys.detail(id),
    queryFn: ({ signal }) => fetchSource(id, signal),
    refetchInterval: HEALTH_REFRESH_MS,
  });
}

/** The debugger's recent calls; `live` polls for new ones. */
export function useSourceEvents(id: string, { live }: { live: boolean }) {
  return useQuery({
    queryKey: sourceKeys.events(id),
    queryFn: ({ signal }) => fetchSourceEvents(id, signal),
    refetchInterval: live ? 1_500 : false,
  });
}

/** A changed source replaces its detail entry; the list shows names and states, so it refetches. */
function useSourceChanged() {
  const qc = useQueryClient();
  return (s: SourceDto) => {
    qc.setQueryData(sourceKeys.detail(s.id), s);
    return qc.invalidateQueries({ queryKey: sourceKeys.list() });
  };
}

export function useCreateSourceMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(sourceRoutes.create, { body: { name } }),
    onSuccess: (s) => {
      qc.setQueryData(sourceKeys.detail(s.id), s);
      return qc.invalidateQueries({ queryKey: sourceKeys.list() });
    },
  });
}

export function useUpdateSourceMutation() {
  const changed = useSourceChanged();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UpdateSourceInput }) => call(sourceRoutes.update, { params: { id }, body: patch }),
    onSuccess: changed,
  });
}

export function useRotateSourceKeyMutation() {
  const changed = useSourceChanged();
  return useMutation({
    mutationFn: ({ id, graceMinutes }: { id: string; graceMinutes: number }) =>
      call(sourceRoutes.rotateKey, { params: { id }, body: { graceMinutes } }),
    onSuccess: changed,
  });
}

export function useDeleteSourceMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(sourceRoutes.remove, { params: { id } }),
    onSuccess: (_, id) => {
      qc.removeQueries({ queryKey: sourceKeys.detail(id), exact: true });
      qc.removeQueries({ queryKey: sourceKeys.events(id), exact: true });
      return qc.invalidateQueries({ queryKey: sourceKeys.list() });
    },
  });
}
