"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { normaliseFilter, readLogUrl, type LogFilter, type LogView } from "./hooks";

/**
 * The log's filters, its view and what is open in its drawer live in the URL, so a view can be shared
 * or reloaded: `attempt=<id>` (an attempt) or `message=<message row id>.<destination id>` (a message
 * at one destination, with its attempt chain).
 */
export function useLogFilter() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const { filter, view } = useMemo(() => readLogUrl(params), [params]);
  const selected = params.get("attempt");
  const [messageRowId, destinationId] = (params.get("message") ?? "").split(".");
  const message = messageRowId && destinationId ? { messageRowId, destinationId } : null;

  const write = useCallback(
    (next: LogFilter, open: { attempt?: string | null; message?: string | null }, nextView: LogView) => {
      const q = new URLSearchParams(normaliseFilter(next) as Record<string, string>);
      if (nextView === "attempts") q.set("view", "attempts");
      if (open.message) q.set("message", open.message);
      if (open.attempt) q.set("attempt", open.attempt);
      const s = q.toString();
      router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
  const opened = { attempt: selected, message: params.get("message") };

  return {
    filter,
    view,
    selected,
    message,
    setFilter: (patch: LogFilter) => write({ ...filter, ...patch }, opened, view),
    clearFilter: () => write({}, {}, view),
    select: (id: string | null) => write(filter, { ...opened, attempt: id }, view),
    /** Opens a message at a destination (its latest attempt shown first), or closes it. */
    openMessage: (m: { messageRowId: string; destinationId: string } | null, attempt: string | null = null) =>
      write(filter, { message: m ? `${m.messageRowId}.${m.destinationId}` : null, attempt: m ? attempt : null }, view),
    setView: (v: LogView) => write(v === "attempts" ? filter : { ...filter }, {}, v),
  };
}
