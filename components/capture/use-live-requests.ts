"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { CapturedRequestDto } from "@/lib/capture/schemas";
import { CAPTURE_LIMITS } from "@/lib/capture/schemas";
import { captureKeys, fetchCapturedRequests } from "./queries";

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
        qc.setQueryData<CapturedRequestDto[]>(captureKeys.requests(binId), (old = []) =>
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
