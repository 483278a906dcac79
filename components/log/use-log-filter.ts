"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { FILTER_KEYS, normaliseFilter, type LogFilter } from "./hooks";

/** The log's filters and selected attempt live in the URL, so a filtered view can be shared or reloaded. */
export function useLogFilter() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = useMemo(() => {
    const f: LogFilter = {};
    for (const k of FILTER_KEYS) f[k] = params.get(k) ?? undefined;
    return normaliseFilter(f);
  }, [params]);
  const selected = params.get("attempt");

  const write = useCallback(
    (next: LogFilter, attempt: string | null) => {
      const q = new URLSearchParams(normaliseFilter(next) as Record<string, string>);
      if (attempt) q.set("attempt", attempt);
      const s = q.toString();
      router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
    },
    [router, pathname],
  );

  return {
    filter,
    selected,
    setFilter: (patch: LogFilter) => write({ ...filter, ...patch }, selected),
    clearFilter: () => write({}, null),
    select: (id: string | null) => write(filter, id),
  };
}
