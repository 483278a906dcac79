import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { deletionRoutes } from "@/lib/deletions/routes";
import { call } from "@/components/data/api-client";

/** Deletion requests (/api/deletions): erase users, then notify their sources' webhooks. */
export const deletionKeys = {
  all: ["deletions"] as const,
  list: () => [...deletionKeys.all, "list"] as const,
  detail: (id: string) => [...deletionKeys.all, "detail", id] as const,
};

/** Requests the worker has not finished: pages poll while they are on screen. */
export const isActive = (status: string) => status === "pending" || status === "running";
/** How often live pages refetch. */
const LIVE_MS = 1500;

export const fetchDeletions = (signal?: AbortSignal) =>
  call(deletionRoutes.list, { query: { limit: 100 }, signal }).then((r) => r.deletions);
export const fetchDeletion = (id: string, signal?: AbortSignal) => call(deletionRoutes.get, { params: { id }, signal });

export function useDeletions() {
  return useQuery({
    queryKey: deletionKeys.list(),
    queryFn: ({ signal }) => fetchDeletions(signal),
    refetchInterval: (q) => (q.state.data?.some((d) => isActive(d.status)) ? LIVE_MS : false),
  });
}

export function useDeletion(id: string) {
  return useQuery({
    queryKey: deletionKeys.detail(id),
    queryFn: ({ signal }) => fetchDeletion(id, signal),
    // Live until the job is done and every notice has a final delivery state — in the totals and in
    // the rows alike: the two are read by separate queries, so one answer can hold a delivered total
    // beside a row still pending, and stopping then would leave "Pending" on screen for good.
    refetchInterval: (q) => {
      const d = q.state.data;
      const settled = d && !isActive(d.status) && d.notificationTotals.pending === 0 && !d.notifications.some((n) => n.state === "pending");
      return settled ? false : LIVE_MS;
    },
  });
}

export function useCreateDeletionMutation() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userIds: string[]) => call(deletionRoutes.create, { body: { userIds } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: deletionKeys.list() }),
  });
}
