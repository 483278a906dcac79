"use client";

import { useMemo } from "react";
import { useUrlQuery } from "@/components/ui/use-url-query";
import { normaliseFilter, readLogUrl, type LogFilter, type LogView } from "./hooks";

/**
 * The log's filters, its view and what is open in its drawer live in the URL, so a view can be shared
 * or reloaded: `attempt=<id>` (an attempt) or `message=<message row id>.<destination id>` (a message
 * at one destination, with its attempt chain). Each change builds on the last URL written (useUrlQuery).
 */
export function useLogFilter() {
  const { params, latest, replace } = useUrlQuery();
  const { filter, view } = useMemo(() => readLogUrl(params), [params]);
  const selected = params.get("attempt");
  const [messageRowId, destinationId] = (params.get("message") ?? "").split(".");
  const message = messageRowId && destinationId ? { messageRowId, destinationId } : null;

  /** What the next change builds on: the filters, view and drawer of the last URL written. */
  const current = () => {
    const p = latest();
    return { ...readLogUrl(p), opened: { attempt: p.get("attempt"), message: p.get("message") } };
  };
  const write = (next: LogFilter, open: { attempt?: string | null; message?: string | null }, nextView: LogView) => {
    const q = new URLSearchParams(normaliseFilter(next) as Record<string, string>);
    if (nextView === "attempts") q.set("view", "attempts");
    if (open.message) q.set("message", open.message);
    if (open.attempt) q.set("attempt", open.attempt);
    replace(q);
  };

  return {
    filter,
    view,
    selected,
    message,
    setFilter: (patch: LogFilter) => {
      const c = current();
      write({ ...c.filter, ...patch }, c.opened, c.view);
    },
    clearFilter: () => write({}, {}, current().view),
    select: (id: string | null) => {
      const c = current();
      write(c.filter, { ...c.opened, attempt: id }, c.view);
    },
    /** Opens a message at a destination (its latest attempt shown first), or closes it. */
    openMessage: (m: { messageRowId: string; destinationId: string } | null, attempt: string | null = null) => {
      const c = current();
      write(c.filter, { message: m ? `${m.messageRowId}.${m.destinationId}` : null, attempt: m ? attempt : null }, c.view);
    },
    setView: (v: LogView) => write({ ...current().filter }, {}, v),
  };
}
