"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { TimeAgo } from "@/components/ui/format";
import { CodeBlock } from "@/components/ui/json";
import type { SourceEventDto } from "@/lib/tracking/debugger";
import { fetchSourceEvents, sourceKeys } from "./queries";

type Show = "all" | "accepted" | "rejected";

/** Segment-style debugger: the source's recent calls, live, each expandable to its JSON. */
export function SourceDebugger({ sourceId }: { sourceId: string }) {
  const [live, setLive] = useState(true);
  const [show, setShow] = useState<Show>("all");
  const [open, setOpen] = useState<Set<string>>(new Set());
  const events = useQuery({
    queryKey: sourceKeys.events(sourceId),
    queryFn: ({ signal }) => fetchSourceEvents(sourceId, signal),
    refetchInterval: live ? 1_500 : false,
  });
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const list = (events.data ?? []).filter((e) => show === "all" || (show === "accepted") === e.accepted);
  const rejected = events.data?.filter((e) => !e.accepted).length ?? 0;

  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-100 px-5 py-3">
        <div>
          <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
            Debugger
            {live ? (
              <span className="inline-flex items-center gap-1 text-xs font-normal text-emerald-700">
                <span className="h-2 w-2 animate-pulse rounded-full bg-emerald-500" aria-hidden /> live
              </span>
            ) : (
              <span className="text-xs font-normal text-slate-500">paused</span>
            )}
          </h2>
          <p className="text-xs text-slate-500">The latest calls to this source, accepted and rejected, newest first.</p>
        </div>
        <div className="flex items-center gap-2">
          <div role="radiogroup" aria-label="Show calls" className="inline-flex rounded-md ring-1 ring-inset ring-slate-300">
            {(["all", "accepted", "rejected"] as const).map((s) => (
              <button
                key={s}
                type="button"
                role="radio"
                aria-checked={show === s}
                onClick={() => setShow(s)}
                className={`px-2.5 py-1 text-xs capitalize first:rounded-l-md last:rounded-r-md ${show === s ? "bg-indigo-600 text-white" : "text-slate-600 hover:bg-slate-50"}`}
              >
                {s}
                {s === "rejected" && rejected ? ` (${rejected})` : ""}
              </button>
            ))}
          </div>
          <Button variant="secondary" onClick={() => setLive((l) => !l)}>{live ? "Pause" : "Resume"}</Button>
        </div>
      </div>
      {events.isPending ? (
        <div className="px-5"><Spinner label="Loading recent calls…" /></div>
      ) : events.isError ? (
        <div className="p-5"><ErrorNote error={events.error} /></div>
      ) : list.length === 0 ? (
        <div className="p-5">
          <EmptyState title={events.data.length ? `No ${show} calls among the latest` : "No calls yet"}>
            {events.data.length ? "Switch the filter to see the others." : "Send a call with the write key above (try the curl command) and it appears here within seconds."}
          </EmptyState>
        </div>
      ) : (
        <ul aria-label="Recent calls" className="divide-y divide-slate-100">
          {list.map((e) => (
            <EventRow key={e.id} event={e} expanded={open.has(e.id)} onToggle={() => toggle(e.id)} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function EventRow({ event: e, expanded, onToggle }: { event: SourceEventDto; expanded: boolean; onToggle: () => void }) {
  const label = `${e.type ?? "call"} ${e.messageId ?? ""}`.trim();
  return (
    <li>
      <button
        type="button"
        aria-expanded={expanded}
        aria-label={`${e.accepted ? "Accepted" : "Rejected"} ${label}`}
        onClick={onToggle}
        className="flex w-full items-center gap-3 px-5 py-2.5 text-left text-sm hover:bg-slate-50"
      >
        <span aria-hidden className={`text-xs text-slate-400 transition-transform ${expanded ? "rotate-90" : ""}`}>▶</span>
        <Badge tone={e.accepted ? "green" : "red"}>{e.accepted ? "Accepted" : "Rejected"}</Badge>
        <span className="w-20 shrink-0 font-mono text-xs font-semibold text-slate-700">{e.type ?? "—"}</span>
        <span className="min-w-0 flex-1 truncate">
          {e.accepted ? <span className="text-slate-700">{describe(e.payload)}</span> : <span className="text-red-700">{e.reason}</span>}
        </span>
        <span className="hidden max-w-48 truncate font-mono text-xs text-slate-400 md:block">{e.messageId}</span>
        <span className="w-16 shrink-0 text-right text-xs text-slate-500"><TimeAgo iso={e.receivedAt} /></span>
      </button>
      {expanded ? (
        <div className="space-y-2 bg-slate-50 px-5 py-3">
          {!e.accepted && e.reason ? <p className="text-sm text-red-700">Reason: {e.reason}</p> : null}
          <div className="flex justify-end"><CopyButton value={JSON.stringify(e.payload, null, 2)} label="Copy JSON" /></div>
          <CodeBlock value={e.payload ?? null} label="Call JSON" />
        </div>
      ) : null}
    </li>
  );
}

function describe(payload: unknown): string {
  if (!payload || typeof payload !== "object") return "";
  const p = payload as Record<string, unknown>;
  const who = p.userId ?? p.anonymousId;
  const what = p.event ?? p.name ?? p.groupId ?? p.previousId;
  return [what, who ? `user ${who}` : null].filter(Boolean).join(" · ");
}
