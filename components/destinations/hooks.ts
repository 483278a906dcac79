import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { destinationRoutes } from "@/lib/destinations/routes";
import type {
  DestinationDto,
  DestinationInput,
  DestinationFilter,
  DestinationPatch,
  RevealInput,
  RotateSecretInput,
  TestSendInput,
} from "@/lib/destinations/contract";
import { call } from "@/components/data/api-client";
import { logKeys } from "@/components/log/hooks";
import { statsKeys } from "@/components/overview/hooks";

/** Destinations (/api/destinations): the list, one destination, its endpoint health and test-sends. */
export const destinationKeys = {
  all: ["destinations"] as const,
  list: () => [...destinationKeys.all, "list"] as const,
  detail: (id: string) => [...destinationKeys.all, "detail", id] as const,
  /** Per-URL health, judged from recent attempts. */
  health: (id: string) => [...destinationKeys.all, "health", id] as const,
  /** A filter tried against the recent calls of some sources (the form's preview). */
  filterPreview: (sourceIds: string[], filter: DestinationFilter | null) =>
    [...destinationKeys.all, "filter-preview", sourceIds, filter] as const,
};

export const fetchDestinations = (signal?: AbortSignal) => call(destinationRoutes.list, { signal }).then((r) => r.destinations);
export const fetchDestination = (id: string, signal?: AbortSignal) => call(destinationRoutes.get, { params: { id }, signal });
export const fetchDestinationHealth = (id: string, signal?: AbortSignal) => call(destinationRoutes.health, { params: { id }, signal });

/**
 * One write-only value, fetched only when a person asks to see it (docs/signing.md#secrets). Never
 * put in the query cache: it is shown where it was asked for and forgotten with that component.
 */
export const revealDestinationValue = (id: string, which: RevealInput) =>
  call(destinationRoutes.reveal, { params: { id }, body: which }).then((r) => r.value);

export const fetchFilterPreview = (sourceIds: string[], filter: DestinationFilter, signal?: AbortSignal) =>
  call(destinationRoutes.filterPreview, { body: { sourceIds, filter, limit: 200 }, signal });

/** How the filter would treat the sources' recent calls; runs only for a valid filter and at least one source. */
export function useFilterPreview(sourceIds: string[], filter: DestinationFilter | null) {
  return useQuery({
    queryKey: destinationKeys.filterPreview(sourceIds, filter),
    queryFn: ({ signal }) => fetchFilterPreview(sourceIds, filter!, signal),
    enabled: filter !== null && sourceIds.length > 0,
    staleTime: 10_000,
  });
}

export function useDestinations({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: destinationKeys.list(), queryFn: ({ signal }) => fetchDestinations(signal), enabled });
}

export function useDestination(id: string) {
  return useQuery({ queryKey: destinationKeys.detail(id), queryFn: ({ signal }) => fetchDestination(id, signal) });
}

export function useDestinationHealth(id: string) {
  return useQuery({
    queryKey: destinationKeys.health(id),
    queryFn: ({ signal }) => fetchDestinationHealth(id, signal),
    refetchInterval: 15_000,
  });
}

/** A saved destination replaces its detail entry; the list shows names, URLs and states, so it refetches. */
function useDestinationSaved() {
  const qc = useQueryClient();
  return (d: DestinationDto) => {
    qc.setQueryData(destinationKeys.detail(d.id), d);
    return qc.invalidateQueries({ queryKey: destinationKeys.list() });
  };
}

export function useCreateDestinationMutation() {
  const saved = useDestinationSaved();
  return useMutation({
    mutationFn: (input: DestinationInput) => call(destinationRoutes.create, { body: input }),
    onSuccess: saved,
  });
}

/** PATCH /api/destinations/:id: the form's "Save changes" and the page's Enable/Disable alike. */
export function useUpdateDestinationMutation() {
  const saved = useDestinationSaved();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: DestinationPatch }) => call(destinationRoutes.update, { params: { id }, body: patch }),
    onSuccess: saved,
  });
}

/** Pause or resume (docs/routing.md#pause): the destination comes back with its `pausedAt`. */
export function usePauseDestinationMutation() {
  const saved = useDestinationSaved();
  return useMutation({
    mutationFn: ({ id, pause }: { id: string; pause: boolean }) =>
      pause ? call(destinationRoutes.pause, { params: { id } }) : call(destinationRoutes.resume, { params: { id } }),
    onSuccess: saved,
  });
}

export function useDeleteDestinationMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(destinationRoutes.remove, { params: { id } }),
    onSuccess: (_, id) => {
      qc.removeQueries({ queryKey: destinationKeys.detail(id), exact: true });
      qc.removeQueries({ queryKey: destinationKeys.health(id), exact: true });
      return qc.invalidateQueries({ queryKey: destinationKeys.list() });
    },
  });
}

/** A test event, signed as the destination signs, sent now; its attempts come back and join the log and the stats. */
export function useTestSendMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ destinationId, input }: { destinationId: string; input: TestSendInput }) =>
      call(destinationRoutes.test, { params: { id: destinationId }, body: input }),
    // The test's attempt counts in the log, the figures and the URL's health at once, not at the next refresh.
    onSuccess: (_r, v) =>
      Promise.all([
        qc.invalidateQueries({ queryKey: logKeys.attempts() }),
        qc.invalidateQueries({ queryKey: statsKeys.all }),
        qc.invalidateQueries({ queryKey: destinationKeys.health(v.destinationId) }),
      ]),
  });
}

/**
 * Rotate a secret (docs/signing.md#secret-rotation). The new secret comes back in the answer only:
 * the caller shows it once; the cache gets the destination, which never holds it.
 */
export function useRotateDestinationSecretMutation() {
  const saved = useDestinationSaved();
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: RotateSecretInput }) =>
      call(destinationRoutes.rotateSecret, { params: { id }, body: input }),
    onSuccess: (r) => saved(r.destination),
  });
}
