"use client";

import Link from "next/link";
import { requestLogRoutes } from "@/lib/request-log/routes";
import { useQuery } from "@tanstack/react-query";
import type { FailureGroupDto } from "@/lib/request-log/contract";
import { call } from "@/components/data/api-client";
import { useCan } from "@/components/layout/role";
import { ReplayMatching } from "@/components/log/replay-matching";
import type { LogFilter } from "@/components/log/hooks";
import { Badge, Card, ErrorNote, Spinner } from "@/components/ui/card";
import { TimeAgo, plural, statusTone } from "@/components/ui/format";
import { ShortValue } from "@/components/ui/short-url";
import { statsKeys } from "./hooks";
import { describeErrorText, KIND_WORDS, statusText } from "@/components/ui/describe-error";

/** The reason as the log shows it: the status the endpoint answered, or the kind of error without one. */
const reason = (g: FailureGroupDto) =>
  g.responseStatus != null ? statusText(g.responseStatus) : g.errorKind ? (KIND_WORDS[g.errorKind] ?? g.errorKind) : "Error";

/** The log filter of one group: "View in the log" opens exactly these attempts, "Replay these" re-sends their messages. */
export function groupFilter(g: FailureGroupDto, from: string, to: string): LogFilter {
  return {
    destinationId: g.destinationId,
    url: g.url,
    from,
    to,
    ...(g.responseStatus != null
      ? { status: String(g.responseStatus) }
      : g.errorKind
        ? { errorKind: g.errorKind, statusClass: "none" }
        : {}),
  };
}

/**
 * "What failed and why" on the overview: the window's failed and retried attempts grouped by
 * destination, URL and reason, biggest first, each with its counts, the newest error, a link to
 * those attempts in the log and (admins) "Replay these" (docs/dashboard.md#delivery-overview).
 */
export function FailureGroups({ from, to, destinationId }: { from: string; to: string; destinationId: string | null }) {
  const canReplay = useCan("admin");
  const q = useQuery({
    queryKey: [...statsKeys.all, "failures", from, to, destinationId],
    queryFn: ({ signal }) =>
      call(requestLogRoutes.failureGroups, { query: { from, to, destinationId: destinationId ?? undefined }, signal }),
    refetchInterval: 30_000,
  });
  return (
    <Card className="mt-6">
      <h2 className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-900">Failures by reason</h2>
      {q.isPending ? (
        <div className="px-4">
          <Spinner label="Loading failures…" />
        </div>
      ) : q.isError ? (
        <div className="p-4">
          <ErrorNote error={q.error} />
        </div>
      ) : q.data.groups.length === 0 ? (
        <p className="px-4 py-3 text-sm text-slate-500">Nothing failed or was retried in this window.</p>
      ) : (
        <ul className="divide-y divide-slate-100" aria-label="Failures by reason">
          {q.data.groups.map((g) => {
            const filter = groupFilter(g, from, to);
            const query = new URLSearchParams(filter as Record<string, string>);
            return (
              <li key={`${g.destinationId} ${g.url} ${reason(g)}`} className="flex flex-wrap items-start gap-x-4 gap-y-2 px-4 py-3 text-sm">
                {/* At least 16rem before the actions sit beside it: on a phone they wrap under it instead of squeezing it. */}
                <div className="min-w-0 flex-1 basis-64 space-y-0.5">
                  <div className="flex flex-wrap items-center gap-2">
                    <Badge tone={g.responseStatus != null ? statusTone(g.responseStatus) : "red"}>{reason(g)}</Badge>
                    <bdi className="font-medium text-slate-900">{g.destinationName ?? "deleted destination"}</bdi>
                    <span className="text-xs text-slate-500">
                      {plural(g.attempts, "attempt")} · {plural(g.messages, "message")} · last <TimeAgo iso={g.lastAt} />
                    </span>
                  </div>
                  <p className="text-xs text-slate-700" data-testid="failure-standing">
                    <GroupStanding g={g} />
                  </p>
                  <div className="truncate font-mono text-xs text-slate-500">
                    <ShortValue value={g.url} max={64} />
                  </div>
                  {g.lastError && describeErrorText(g.lastError) !== reason(g) ? (
                    <p className="truncate text-xs text-red-700" title={g.lastError}>
                      {describeErrorText(g.lastError)}
                    </p>
                  ) : null}
                </div>
                <div className="flex shrink-0 flex-wrap items-center gap-2">
                  <Link href={`/log?${query}`} className="text-xs text-indigo-700 underline">
                    View in the log
                  </Link>
                  {canReplay && g.failed > 0 ? <ReplayMatching filter={filter} label={`Replay ${g.failed} failed…`} /> : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}

/**
 * Where the group's messages stand now, so its counts and its replay agree: failed ones are what
 * "Replay … failed" sends; still retrying ones are retried on their own and are not replayed.
 */
function GroupStanding({ g }: { g: FailureGroupDto }) {
  const parts = [
    g.failed ? `${g.failed} failed` : null,
    g.retrying ? `${g.retrying} still retrying` : null,
    g.delivered ? `${g.delivered} delivered since` : null,
  ].filter(Boolean);
  return (
    <>
      Now: {parts.join(" · ") || "none left"}.{" "}
      {g.retrying > 0 ? <span className="text-slate-500">Still retrying ones are retried on their own, not replayed.</span> : null}
    </>
  );
}
