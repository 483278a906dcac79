"use client";

import { ShortValue } from "@/components/ui/short-url";
import type { AttemptDto } from "@/lib/request-log/contract";
import { TimeAgo, formatMs } from "@/components/ui/format";
import { Badge } from "@/components/ui/card";
import { OutcomeBadge, StatusBadge } from "./attempt-bits";

/** What the attempt carried, as people name it: the event for a track call ("Order Completed"), else the type. */
const eventLabel = (a: AttemptDto) => a.event ?? a.type;
const attemptName = (a: AttemptDto) =>
  `${eventLabel(a)}${a.event ? ` (${a.type})` : ""}, attempt ${a.attemptNumber} to ${a.destinationName ?? "a deleted destination"}`;

type Props = { attempts: AttemptDto[]; selected: string | null; onSelect: (id: string) => void };

/**
 * Attempts newest first, led by the event name and a relative time, as Segment's Event Delivery and
 * Hookdeck show them; a row opens its detail (click, Enter or Space). Wide screens get a table,
 * phones a list of the same rows.
 */
export function AttemptsTable(props: Props) {
  return (
    <>
      <AttemptsGrid {...props} />
      <AttemptsList {...props} />
    </>
  );
}

function AttemptsGrid({ attempts, selected, onSelect }: Props) {
  return (
    <table className="hidden w-full table-fixed text-sm lg:table" aria-label="Attempts">
      <thead className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
        <tr>
          <th className="px-3 py-2 font-medium">Event</th>
          <th className="w-44 px-3 py-2 font-medium">Status</th>
          <th className="w-64 px-3 py-2 font-medium">Destination</th>
          <th className="w-12 px-3 py-2 text-right font-medium">
            <abbr title="Attempt number" className="no-underline">
              #
            </abbr>
          </th>
          <th className="w-24 px-3 py-2 text-right font-medium">Duration</th>
          <th className="w-28 px-3 py-2 text-right font-medium">Time</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {attempts.map((a) => (
          <tr
            key={a.id}
            data-attempt-id={a.id}
            tabIndex={0}
            aria-selected={selected === a.id}
            aria-label={attemptName(a)}
            onClick={() => onSelect(a.id)}
            onKeyDown={(e) => {
              if (e.key === "Enter" || e.key === " ") {
                e.preventDefault();
                onSelect(a.id);
              }
            }}
            className={`cursor-pointer focus:outline-none focus-visible:bg-indigo-50 ${selected === a.id ? "bg-indigo-50" : "hover:bg-slate-50"}`}
          >
            <td className="px-3 py-2">
              <div className="truncate font-medium text-slate-900" title={eventLabel(a)}>
                <bdi>{eventLabel(a)}</bdi>
              </div>
              <div className="truncate text-xs text-slate-500">
                {a.event ? <span className="font-mono">{a.type} · </span> : null}
                <bdi className="font-mono">{a.userId ?? "no userId"}</bdi>
              </div>
            </td>
            <td className="px-3 py-2">
              <div className="flex flex-wrap items-center gap-1">
                <StatusBadge attempt={a} />
                <OutcomeBadge outcome={a.outcome} />
                {a.backfillId ? <Badge tone="slate">backfill</Badge> : null}
              </div>
            </td>
            <td className="px-3 py-2">
              <div className="truncate text-xs text-slate-700">
                <bdi>{a.destinationName ?? "deleted destination"}</bdi>
              </div>
              <div className="truncate font-mono text-xs text-slate-500">
                <ShortValue value={a.url} max={32} />
              </div>
            </td>
            <td className="px-3 py-2 text-right text-xs tabular-nums text-slate-600">{a.attemptNumber}</td>
            <td className="whitespace-nowrap px-3 py-2 text-right text-xs tabular-nums text-slate-600">{formatMs(a.durationMs)}</td>
            <td className="px-3 py-2 text-right text-xs text-slate-600">
              <TimeAgo iso={a.startedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AttemptsList({ attempts, selected, onSelect }: Props) {
  return (
    <ul className="divide-y divide-slate-100 lg:hidden" aria-label="Attempts">
      {attempts.map((a) => (
        <li key={a.id}>
          <button
            type="button"
            data-attempt-id={a.id}
            aria-current={selected === a.id ? "true" : undefined}
            onClick={() => onSelect(a.id)}
            className={`block w-full space-y-1 px-4 py-3 text-left text-sm ${selected === a.id ? "bg-indigo-50" : "hover:bg-slate-50"}`}
          >
            <span className="flex items-baseline justify-between gap-3">
              <bdi className="min-w-0 truncate font-medium text-slate-900">{eventLabel(a)}</bdi>
              <span className="shrink-0 text-xs text-slate-500">
                <TimeAgo iso={a.startedAt} />
              </span>
            </span>
            <span className="flex flex-wrap items-center gap-1">
              <StatusBadge attempt={a} />
              <OutcomeBadge outcome={a.outcome} />
              <span className="text-xs tabular-nums text-slate-600">
                {formatMs(a.durationMs)} · #{a.attemptNumber}
              </span>
            </span>
            <span className="block truncate text-xs text-slate-500">
              <bdi>{a.destinationName ?? "deleted destination"}</bdi>
            </span>
            <span className="block truncate font-mono text-xs text-slate-500">
              <ShortValue value={a.url} max={44} />
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
