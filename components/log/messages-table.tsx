"use client";

import type { DeliveryRowDto, MessageStatus } from "@/lib/request-log/contract";
import { Badge } from "@/components/ui/card";
import { TimeAgo, plural } from "@/components/ui/format";
import { describeErrorText, statusText } from "@/components/ui/describe-error";

const STATUS = {
  delivered: { tone: "green", label: "Delivered" },
  retrying: { tone: "amber", label: "Retrying" },
  failed: { tone: "red", label: "Failed" },
  waiting: { tone: "slate", label: "Waiting" },
} as const;

export function MessageStatusBadge({ status }: { status: MessageStatus }) {
  const s = STATUS[status];
  return <Badge tone={s.tone}>{s.label}</Badge>;
}

/** What the row is called: the event of a track call ("Order Completed"), else its type. */
export const messageLabel = (r: Pick<DeliveryRowDto, "event" | "type">) => r.event ?? r.type ?? "erased message";

/** The endpoint's last answer in words, or why there was none. */
export function lastAnswer(r: Pick<DeliveryRowDto, "lastStatus" | "lastError" | "attempts">): string {
  if (r.lastStatus != null) return statusText(r.lastStatus);
  if (r.lastError) return describeErrorText(r.lastError);
  return r.attempts === 0 ? "Not sent yet" : "—";
}

const attemptsText = (r: DeliveryRowDto) => `${r.attempts}${r.replays ? ` · replayed ${r.replays === 1 ? "once" : `${r.replays}×`}` : ""}`;

/** A row's key: a message at one destination (its chain's first delivery). */
export const rowKey = (r: Pick<DeliveryRowDto, "messageRowId" | "destinationId">) => `${r.messageRowId}.${r.destinationId}`;

const rowName = (r: DeliveryRowDto) =>
  `${messageLabel(r)} to ${r.destinationName ?? "a deleted destination"}: ${STATUS[r.status].label}, ${plural(r.attempts, "attempt")}`;

type Props = { rows: DeliveryRowDto[]; selected: string | null; onSelect: (r: DeliveryRowDto) => void };

/**
 * The log by message (docs/dashboard.md#the-log-by-message): one row per message and destination,
 * newest first, with its status, attempts and last answer; a row opens its attempt chain (click,
 * Enter or Space). Wide screens get a table, phones a list of the same rows.
 */
export function MessagesTable(props: Props) {
  return (
    <>
      <MessagesGrid {...props} />
      <MessagesList {...props} />
      {/* After the rows: "Skip to results" then Tab reaches the first row, not this. */}
      <ColumnsExplained />
    </>
  );
}

/** What each column means, one disclosure away. */
function ColumnsExplained() {
  return (
    <details className="border-t border-slate-100 px-4 py-2 text-xs text-slate-600">
      <summary className="cursor-pointer text-indigo-700">What the columns mean</summary>
      <dl className="mt-2 grid grid-cols-[7rem_minmax(0,1fr)] gap-x-3 gap-y-1">
        <dt className="font-medium text-slate-700">Status</dt>
        <dd>
          How the message stands at that destination now: delivered; retrying (another attempt is due); failed (it can be replayed); waiting
          (not attempted yet: queued, batched, held for order, throttled or paused).
        </dd>
        <dt className="font-medium text-slate-700">Attempts</dt>
        <dd>How many HTTP requests it took, replays included.</dd>
        <dt className="font-medium text-slate-700">Last answer</dt>
        <dd>What the endpoint answered last, or why it did not answer.</dd>
        <dt className="font-medium text-slate-700">Received</dt>
        <dd>When the message reached this destination.</dd>
      </dl>
    </details>
  );
}

function MessagesGrid({ rows, selected, onSelect }: Props) {
  return (
    <table className="hidden w-full table-fixed text-sm lg:table" aria-label="Messages">
      <thead className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
        <tr>
          <th className="px-3 py-2 font-medium">Event</th>
          <th className="w-32 px-3 py-2 font-medium">Status</th>
          <th className="w-32 px-3 py-2 text-right font-medium">Attempts</th>
          <th className="w-56 px-3 py-2 font-medium">Last answer</th>
          <th className="w-48 px-3 py-2 font-medium">Destination</th>
          <th className="w-28 px-3 py-2 text-right font-medium">Received</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => {
          const key = rowKey(r);
          return (
            <tr
              key={r.id}
              data-row-key={key}
              tabIndex={0}
              aria-selected={selected === key}
              aria-label={rowName(r)}
              onClick={() => onSelect(r)}
              onKeyDown={(e) => {
                if (e.key === "Enter" || e.key === " ") {
                  e.preventDefault();
                  onSelect(r);
                }
              }}
              className={`cursor-pointer focus:outline-none focus-visible:bg-indigo-50 ${selected === key ? "bg-indigo-50" : "hover:bg-slate-50"}`}
            >
              <td className="px-3 py-2">
                <div className="truncate font-medium text-slate-900" title={messageLabel(r)}>
                  <bdi>{messageLabel(r)}</bdi>
                </div>
                <div className="truncate text-xs text-slate-500">
                  {r.event ? <span className="font-mono">{r.type} · </span> : null}
                  <bdi className="font-mono">{r.userId ?? "no userId"}</bdi>
                </div>
              </td>
              <td className="px-3 py-2">
                <div className="flex flex-wrap items-center gap-1">
                  <MessageStatusBadge status={r.status} />
                  {r.testSend ? <Badge tone="indigo">test</Badge> : null}
                  {r.backfillId ? <Badge tone="slate">backfill</Badge> : null}
                </div>
                {r.status === "retrying" && r.nextAttemptAt ? (
                  <div className="text-xs text-slate-500">
                    next try <NextTry iso={r.nextAttemptAt} />
                  </div>
                ) : null}
              </td>
              <td className="px-3 py-2 text-right text-xs tabular-nums text-slate-700">{attemptsText(r)}</td>
              <td className="truncate px-3 py-2 text-xs text-slate-700" title={lastAnswer(r)}>
                {lastAnswer(r)}
              </td>
              <td className="truncate px-3 py-2 text-xs text-slate-700">
                <bdi>{r.destinationName ?? "deleted destination"}</bdi>
              </td>
              <td className="px-3 py-2 text-right text-xs text-slate-600">
                <TimeAgo iso={r.createdAt} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function MessagesList({ rows, selected, onSelect }: Props) {
  return (
    <ul className="divide-y divide-slate-100 lg:hidden" aria-label="Messages">
      {rows.map((r) => {
        const key = rowKey(r);
        return (
          <li key={r.id}>
            <button
              type="button"
              data-row-key={key}
              aria-current={selected === key ? "true" : undefined}
              onClick={() => onSelect(r)}
              className={`block w-full space-y-1 px-4 py-3 text-left text-sm ${selected === key ? "bg-indigo-50" : "hover:bg-slate-50"}`}
            >
              <span className="flex items-baseline justify-between gap-3">
                <bdi className="min-w-0 truncate font-medium text-slate-900">{messageLabel(r)}</bdi>
                <span className="shrink-0 text-xs text-slate-500">
                  <TimeAgo iso={r.createdAt} />
                </span>
              </span>
              <span className="flex flex-wrap items-center gap-1">
                <MessageStatusBadge status={r.status} />
                {r.testSend ? <Badge tone="indigo">test</Badge> : null}
                <span className="text-xs tabular-nums text-slate-600">
                  {plural(r.attempts, "attempt")}
                  {r.replays ? ` · replayed ${r.replays === 1 ? "once" : `${r.replays}×`}` : ""}
                </span>
              </span>
              <span className="block truncate text-xs text-slate-600">{lastAnswer(r)}</span>
              <span className="block truncate text-xs text-slate-500">
                <bdi>{r.destinationName ?? "deleted destination"}</bdi>
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** "in 3 min" (or "due now" once past). */
function NextTry({ iso }: { iso: string }) {
  const s = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
  const text = s <= 5 ? "due now" : s < 60 ? `in ${s} s` : s < 3600 ? `in ${Math.round(s / 60)} min` : `in ${Math.round(s / 3600)} h`;
  // "next try in 3 s", "next try due now"
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()} suppressHydrationWarning>
      {text}
    </time>
  );
}
