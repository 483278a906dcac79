import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { captureRoutes } from "@/lib/capture/routes";
import type { CaptureBinDto, CapturedRequestSummaryDto, UpdateCaptureBinInput } from "@/lib/capture/contract";
import { CAPTURE_LIMITS } from "@/lib/capture/limits";
import { call } from "@/components/data/api-client";

/** Capture URLs (/api/capture-bins) and the requests they caught. */
export const captureKeys = {
  all: ["capture-bins"] as const,
  list: () => [...captureKeys.all, "list"] as const,
  detail: (id: string) => [...captureKeys.all, "detail", id] as const,
  requests: (id: string) => [...captureKeys.all, "requests", id] as const,
  /** The live poll for requests newer than `after`. */
  newer: (id: string, after: string | null) => [...captureKeys.all, "requests", id, "after", after] as const,
  /** One request in full (headers, whole body): fetched when it is opened. */
  request: (id: string, requestId: string) => [...captureKeys.all, "request", id, requestId] as const,
  /** Its signatures checked on the server against one destination's secrets. */
  signatures: (id: string, requestId: string, destinationId: string) =>
    [...captureKeys.all, "request", id, requestId, "signatures", destinationId] as const,
};

export const fetchCaptureBins = (signal?: AbortSignal) => call(captureRoutes.list, { signal }).then((r) => r.bins);
export const fetchCaptureBin = (id: string, signal?: AbortSignal) => call(captureRoutes.get, { params: { id }, signal });
export const fetchCapturedRequests = (id: string, after: string | null, signal?: AbortSignal) =>
  call(captureRoutes.requests, { params: { id }, query: { after: after ?? undefined }, signal }).then((r) => r.requests);

export const fetchCapturedRequest = (id: string, requestId: string, signal?: AbortSignal) =>
  call(captureRoutes.request, { params: { id, requestId }, signal });
/** Without a destination, the server checks against the one that sent the request (docs/dashboard.md#capture-urls). */
export const checkCapturedSignatures = (id: string, requestId: string, destinationId: string | null, signal?: AbortSignal) =>
  call(captureRoutes.verify, { params: { id, requestId }, body: destinationId ? { destinationId } : {}, signal });

/** `live` refreshes counts and last-request times every 5 s (the list page). */
export function useCaptureBins({ live = false, enabled = true }: { live?: boolean; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: captureKeys.list(),
    queryFn: ({ signal }) => fetchCaptureBins(signal),
    refetchInterval: live ? 5_000 : false,
    enabled,
  });
}

export function useCaptureBin(id: string) {
  return useQuery({ queryKey: captureKeys.detail(id), queryFn: ({ signal }) => fetchCaptureBin(id, signal) });
}

/**
 * The newest requests of a bin, kept live by a 1 s poll that asks only for what arrived after the
 * newest one we have (`?after=`), so a quiet bin costs one empty query per second.
 */
export function useLiveRequests(binId: string) {
  const qc = useQueryClient();
  const initial = useQuery({
    queryKey: captureKeys.requests(binId),
    queryFn: ({ signal }) => fetchCapturedRequests(binId, null, signal),
    staleTime: Infinity,
  });
  const newest = initial.data?.[0]?.id ?? null;
  useQuery({
    queryKey: captureKeys.newer(binId, newest),
    enabled: initial.isSuccess,
    refetchInterval: 1_000,
    refetchIntervalInBackground: false,
    queryFn: async ({ signal }) => {
      const fresh = await fetchCapturedRequests(binId, newest, signal);
      if (fresh.length > 0) {
        qc.setQueryData<CapturedRequestSummaryDto[]>(captureKeys.requests(binId), (old = []) =>
          [...fresh, ...old.filter((r) => BigInt(r.id) < BigInt(fresh.at(-1)!.id))].slice(0, CAPTURE_LIMITS.requestsPerBin),
        );
        // The count in the header and the list follow the new arrivals.
        void qc.invalidateQueries({ queryKey: captureKeys.detail(binId), exact: true });
      }
      return fresh.length;
    },
  });
  return initial;
}

/**
 * The list carries previews only; the request the user opens is fetched whole, once (a captured
 * request never changes).
 */
export function useCapturedRequest(binId: string, requestId: string | undefined) {
  return useQuery({
    queryKey: captureKeys.request(binId, requestId ?? ""),
    queryFn: ({ signal }) => fetchCapturedRequest(binId, requestId!, signal),
    enabled: !!requestId,
    staleTime: Infinity,
  });
}

/** Signature checks against a destination's secrets, done by the server (they never reach the browser). */
export function useSignatureCheck(binId: string, requestId: string, destinationId: string | null) {
  return useQuery({
    queryKey: captureKeys.signatures(binId, requestId, destinationId ?? ""),
    queryFn: ({ signal }) => checkCapturedSignatures(binId, requestId, destinationId, signal),
  });
}

/** A saved bin replaces its detail entry; the list shows names and responses, so it refetches. */
function useCaptureBinSaved() {
  const qc = useQueryClient();
  return (bin: CaptureBinDto) => {
    qc.setQueryData(captureKeys.detail(bin.id), bin);
    return qc.invalidateQueries({ queryKey: captureKeys.list() });
  };
}

export function useCreateCaptureBinMutation() {
  const saved = useCaptureBinSaved();
  return useMutation({
    mutationFn: () => call(captureRoutes.create, { body: {} }),
    onSuccess: saved,
  });
}

export function useUpdateCaptureBinMutation() {
  const saved = useCaptureBinSaved();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: UpdateCaptureBinInput }) =>
      call(captureRoutes.update, { params: { id }, body: patch }),
    onSuccess: saved,
  });
}

export function useDeleteCaptureBinMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(captureRoutes.remove, { params: { id } }),
    onSuccess: (_, id) => {
      qc.removeQueries({ queryKey: captureKeys.detail(id), exact: true });
      return qc.invalidateQueries({ queryKey: captureKeys.list() });
    },
  });
}

/** Empties a bin; the URL keeps working. */
export function useClearCapturedRequestsMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call(captureRoutes.clearRequests, { params: { id } }),
    onSuccess: (_, id) => {
      qc.setQueryData(captureKeys.requests(id), []);
      return Promise.all([
        qc.invalidateQueries({ queryKey: captureKeys.detail(id), exact: true }),
        qc.invalidateQueries({ queryKey: captureKeys.list() }),
      ]);
    },
  });
}
