"use client";

import { ShortValue } from "@/components/ui/short-url";
import Link from "next/link";
import { Card, EmptyState, ErrorNote, Spinner } from "@/components/ui/card";
import { TimeAgo, formatMs } from "@/components/ui/format";
import { OutcomeBadge, StatusBadge } from "@/components/log/attempt-bits";
import { useRecentAttempts } from "@/components/log/hooks";

/** The destination's ten latest attempts, refreshed while the page is open. */
export function RecentAttempts({ destinationId }: { destinationId: string }) {
  const attempts = useRecentAttempts(destinationId);
  return (
    <Card>
      <div className="flex items-center justify-between border-b border-slate-100 px-5 py-3">
        <h2 className="text-sm font-semibold text-slate-900">Recent attempts</h2>
        <Link href={`/log?destinationId=${destinationId}`} className="text-xs text-indigo-700 hover:underline">
          Open in the request log →
        </Link>
      </div>
      {attempts.isPending ? (
        <div className="px-5">
          <Spinner />
        </div>
      ) : attempts.isError ? (
        <div className="p-5">
          <ErrorNote error={attempts.error} />
        </div>
      ) : attempts.data.attempts.length === 0 ? (
        <div className="p-5">
          <EmptyState title="No attempts yet">Send a test event above, or send calls to a connected source.</EmptyState>
        </div>
      ) : (
        <ul className="divide-y divide-slate-100">
          {attempts.data.attempts.map((a) => (
            <li key={a.id}>
              <Link
                href={`/log?view=attempts&destinationId=${destinationId}&attempt=${a.id}`}
                className="flex items-center gap-3 px-5 py-2 text-sm hover:bg-slate-50"
              >
                <StatusBadge attempt={a} />
                <OutcomeBadge outcome={a.outcome} />
                <bdi className="min-w-0 flex-1 truncate text-xs text-slate-900">{a.event ?? a.type}</bdi>
                <span className="hidden min-w-0 flex-1 truncate font-mono text-xs text-slate-500 sm:block">
                  <ShortValue value={a.url} max={40} />
                </span>
                <span className="whitespace-nowrap text-right text-xs tabular-nums text-slate-500">{formatMs(a.durationMs)}</span>
                <span className="whitespace-nowrap text-right text-xs text-slate-500">
                  <TimeAgo iso={a.startedAt} />
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
