import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { backfillRoutes } from "@/lib/backfills/routes";
import type { BackfillDto, BackfillInput } from "@/lib/backfills/contract";
import { call } from "@/components/data/api-client";

/** Backfills (/api/destinations/{id}/backfills): a destination's list, dry runs, starts and cancels. */
export const backfillKeys = {
  all: ["backfills"] as const,
  list: (destinationId: string) => [...backfillKeys.all, "list", destinationId] as const,
};

export const fetchBackfills = (destinationId: string, signal?: AbortSignal) =>
  call(backfillRoutes.list, { params: { id: destinationId }, signal }).then((r) => r.backfills);

/** A destination's backfills, polled every 2 s while one of them runs so its progress advances on screen. */
export function useBackfills(destinationId: string) {
  return useQuery({
    queryKey: backfillKeys.list(destinationId),
    queryFn: ({ signal }) => fetchBackfills(destinationId, signal),
    refetchInterval: (q) => (q.state.data?.some((b) => b.state === "running" || b.done < b.queued) ? 2_000 : false),
  });
}

/** The count a backfill of `input` would send (its dry run). */
export function useBackfillDryRunMutation(destinationId: string) {
  return useMutation({
    mutationFn: async (input: Omit<BackfillInput, "dryRun">) => {
      const r = await call(backfillRoutes.create, { params: { id: destinationId }, body: { ...input, dryRun: true } });
      if (!("count" in r)) throw new Error("The dry run answered without a count");
      return r;
    },
  });
}

export function useStartBackfillMutation(destinationId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (input: Omit<BackfillInput, "dryRun">) => {
      const r = await call(backfillRoutes.create, { params: { id: destinationId }, body: { ...input, dryRun: false } });
      if ("count" in r) throw new Error("The backfill did not start");
      return r as BackfillDto;
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: backfillKeys.list(destinationId) }),
  });
}

export function useCancelBackfillMutation(destinationId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (backfillId: string) => call(backfillRoutes.cancel, { params: { id: destinationId, backfillId } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: backfillKeys.list(destinationId) }),
  });
}
