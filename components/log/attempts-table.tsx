"use client";

import type { AttemptDto } from "@/lib/delivery/attempt-schemas";
import { formatMs } from "@/components/ui/format";
import { OutcomeBadge, StatusBadge } from "./attempt-bits";

/** Attempts newest first; a row opens its detail (click, Enter or Space). */
export function AttemptsTable({ attempts, selected, onSelect }: { attempts: AttemptDto[]; selected: string | null; onSelect: (id: string) => void }) {
  return (
    <table className="w-full table-fixed text-sm" aria-label="Attempts">
      <thead className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
        <tr>
          <th className="w-40 px-3 py-2 font-medium">Time</th>
          <th className="w-20 px-3 py-2 font-medium">Status</th>
          <th className="w-24 px-3 py-2 font-medium">Outcome</th>
          <th className="w-36 px-3 py-2 font-medium">Destination</th>
          <th className="w-32 px-3 py-2 font-medium">Event</th>
          <th className="px-3 py-2 font-medium">URL</th>
          <th className="w-12 px-3 py-2 text-right font-medium">#</th>
          <th className="w-20 px-3 py-2 text-right font-medium">Duration</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {attempts.map((a) => (
          <tr
            key={a.id}
            tabIndex={0}
            aria-selected={selected === a.id}
            aria-label={`Attempt ${a.attemptNumber} of ${a.type} ${a.messageId} to ${a.url}`}
            onClick={() => onSelect(a.id)}
            onKeyDown={(e) => {
              if (e.key === "Enter" || e.key === " ") {
                e.preventDefault();
                onSelect(a.id);
              }
            }}
            className={`cursor-pointer focus:outline-none focus-visible:bg-indigo-50 ${selected === a.id ? "bg-indigo-50" : "hover:bg-slate-50"}`}
          >
            <td className="px-3 py-2 text-xs tabular-nums text-slate-600" title={a.startedAt}>{new Date(a.startedAt).toLocaleString()}</td>
            <td className="px-3 py-2"><StatusBadge attempt={a} /></td>
            <td className="px-3 py-2"><OutcomeBadge outcome={a.outcome} /></td>
            <td className="truncate px-3 py-2 text-xs text-slate-700">{a.destinationName ?? "deleted"}</td>
            <td className="px-3 py-2">
              <div className="font-mono text-xs text-slate-900">{a.type}</div>
              <div className="truncate text-xs text-slate-500" title={a.userId ?? ""}>{a.userId ?? "—"}</div>
            </td>
            <td className="truncate px-3 py-2 font-mono text-xs text-slate-500" title={a.url}>{a.url}</td>
            <td className="px-3 py-2 text-right text-xs tabular-nums text-slate-600">{a.attemptNumber}</td>
            <td className="px-3 py-2 text-right text-xs tabular-nums text-slate-600">{formatMs(a.durationMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
