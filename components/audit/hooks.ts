import { useInfiniteQuery } from "@tanstack/react-query";
import { auditRoutes } from "@/lib/audit/routes";
import { call } from "@/components/data/api-client";
import type { AuditQuery } from "@/lib/audit/contract";

export type AuditFilters = Partial<Pick<AuditQuery, "actor" | "resource" | "action" | "from" | "to">>;

/** The audit log (/api/audit), newest first, a page at a time (keyset on nextCursor). */
export const auditKeys = {
  all: ["audit"] as const,
  list: (f: AuditFilters) => [...auditKeys.all, "list", f] as const,
};

export function useAuditLog(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: auditKeys.list(filters),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ signal, pageParam }) => call(auditRoutes.list, { signal, query: { ...filters, limit: 50, cursor: pageParam } }),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
