"use client";

import Link from "next/link";
import { useCallback, useRef } from "react";
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
  // The row that opened the drawer: closing it returns focus there (the drawer may have moved along the chain).
  const openedFrom = useRef<string | null>(null);
  const results = useRef<HTMLElement>(null);
  const open = (id: string) => {
    openedFrom.current = id;
    select(id === selected ? null : id);
  };
  const close = useCallback(() => {
    const id = openedFrom.current ?? selected;
    select(null);
    const row = [...document.querySelectorAll<HTMLElement>(`[data-attempt-id="${CSS.escape(id ?? "")}"]`)].find(
      (el) => el.getClientRects().length > 0,
    );
    (row ?? results.current)?.focus();
  }, [select, selected]);

  return (
    <>
      <PageHeader
        title="Request log"
        description="Every HTTP attempt to your destinations, newest first. Select one to see exactly what was sent and received."
        actions={canReplay ? <ReplayMatching filter={filter} /> : null}
      />
      <a
        href="#results"
        className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 ring-2 ring-indigo-600 focus:not-sr-only focus:mb-2 focus:inline-block"
      >
        Skip to results
      </a>
      <FilterBar filter={filter} onChange={setFilter} onClear={clearFilter} />
      <div>
        {/* tabIndex -1: "Skip to results" moves focus here, so the next Tab is the first attempt. */}
        <section id="results" ref={results} tabIndex={-1} aria-label="Results" className="min-w-0 focus:outline-none">
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
              <AttemptsTable attempts={attempts} selected={selected} onSelect={open} />
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
        </section>
        {selected ? <AttemptPanel id={selected} onClose={close} onSelect={select} /> : null}
      </div>
    </>
  );
}
