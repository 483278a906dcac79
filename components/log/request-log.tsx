"use client";

import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { plural } from "@/components/ui/format";
import { AttemptPanel } from "./attempt-panel";
import { AttemptsTable } from "./attempts-table";
import { FilterBar } from "./filter-bar";
import { useAttemptLog } from "./hooks";
import { ReplayMatching } from "./replay-matching";
import { useCan } from "@/components/layout/role";
import { useLogFilter } from "./use-log-filter";

export function RequestLog() {
  const { filter, selected, setFilter, clearFilter, select } = useLogFilter();
  const canReplay = useCan("admin");
  const pages = useAttemptLog(filter);
  const attempts = pages.data?.pages.flatMap((p) => p.attempts) ?? [];
  const filtered = Object.keys(filter).length > 0;

  return (
    <>
      <PageHeader
        title="Request log"
        description="Every HTTP attempt to your destinations, newest first. Select one to see exactly what was sent and received."
        actions={canReplay ? <ReplayMatching filter={filter} /> : null}
      />
      <FilterBar filter={filter} onChange={setFilter} onClear={clearFilter} />
      <div>
        <div className="min-w-0">
          {pages.isPending ? (
            <Spinner label="Loading attempts…" />
          ) : pages.isError ? (
            <ErrorNote error={pages.error} />
          ) : attempts.length === 0 ? (
            filtered ? (
              <EmptyState
                title="No attempts match these filters"
                action={
                  <Button variant="secondary" onClick={clearFilter}>
                    Clear filters
                  </Button>
                }
              >
                Widen the time range or remove a filter.
              </EmptyState>
            ) : (
              <EmptyState title="No attempts yet">
                Attempts appear here as soon as a destination receives an event.{" "}
                <Link href="/destinations" className="text-indigo-700 underline">
                  Set up a destination
                </Link>{" "}
                and send a test event, or send calls to a connected source.
              </EmptyState>
            )
          ) : (
            <Card className="overflow-hidden">
              <AttemptsTable attempts={attempts} selected={selected} onSelect={(id) => select(id === selected ? null : id)} />
              <div className="flex items-center justify-between border-t border-slate-100 px-4 py-3 text-xs text-slate-500">
                <span>{plural(attempts.length, "attempt")} shown</span>
                {pages.hasNextPage ? (
                  <Button variant="secondary" onClick={() => pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
                    {pages.isFetchingNextPage ? "Loading…" : "Load more"}
                  </Button>
                ) : (
                  <span>End of the log</span>
                )}
              </div>
            </Card>
          )}
        </div>
        {selected ? <AttemptPanel id={selected} onClose={() => select(null)} onSelect={select} /> : null}
      </div>
    </>
  );
}
