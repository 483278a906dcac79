"use client";

import Link from "next/link";
import { useCallback, useRef } from "react";
import { Button } from "@/components/ui/button";
import { Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { plural } from "@/components/ui/format";
import { AttemptPanel } from "./attempt-panel";
import { AttemptsTable } from "./attempts-table";
import { FilterBar } from "./filter-bar";
import { type LogView, useAttemptLog, useMessageLog } from "./hooks";
import { MessagePanel } from "./message-panel";
import { MessagesTable, rowKey } from "./messages-table";
import { ReplayMatching } from "./replay-matching";
import { useCan } from "@/components/layout/role";
import { useLogFilter } from "./use-log-filter";

const DESCRIPTION: Record<LogView, string> = {
  messages:
    "Every message sent to your destinations, newest first: one row per message and destination, with how it stands there. Select one to see its attempts.",
  attempts: "Every HTTP attempt to your destinations, newest first. Select one to see exactly what was sent and received.",
};

/** The two views, a toggle beside the title (docs/dashboard.md#the-log-by-message). */
function ViewToggle({ view, onChange }: { view: LogView; onChange: (v: LogView) => void }) {
  const options: { v: LogView; label: string }[] = [
    { v: "messages", label: "By message" },
    { v: "attempts", label: "Every attempt" },
  ];
  return (
    <fieldset className="inline-flex rounded-md shadow-sm ring-1 ring-slate-300">
      <legend className="sr-only">Show the log</legend>
      {options.map((o, i) => (
        <button
          key={o.v}
          type="button"
          aria-pressed={view === o.v}
          onClick={() => onChange(o.v)}
          className={`px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 ${i === 0 ? "rounded-l-md" : "rounded-r-md border-l border-slate-300"} ${view === o.v ? "bg-indigo-600 text-white" : "bg-white text-slate-700 hover:bg-slate-50"}`}
        >
          {o.label}
        </button>
      ))}
    </fieldset>
  );
}

export function RequestLog() {
  const { filter, view, selected, message, setFilter, clearFilter, select, openMessage, setView } = useLogFilter();
  const canReplay = useCan("admin");
  const attemptPages = useAttemptLog(filter, { enabled: view === "attempts" });
  const messagePages = useMessageLog(filter, { enabled: view === "messages" });
  const pages = view === "attempts" ? attemptPages : messagePages;
  const attempts = attemptPages.data?.pages.flatMap((p) => p.attempts) ?? [];
  const rows = messagePages.data?.pages.flatMap((p) => p.deliveries) ?? [];
  const count = view === "attempts" ? attempts.length : rows.length;
  const noun = view === "attempts" ? "attempt" : "message";
  const filtered = Object.keys(filter).length > 0;
  // The row that opened the drawer: closing it returns focus there (the drawer may have moved along the chain).
  const openedFrom = useRef<string | null>(null);
  const results = useRef<HTMLElement>(null);
  const open = (id: string) => {
    openedFrom.current = id;
    select(id === selected ? null : id);
  };
  const focusRow = useCallback((attr: string, key: string | null) => {
    const row = [...document.querySelectorAll<HTMLElement>(`[${attr}="${CSS.escape(key ?? "")}"]`)].find(
      (el) => el.getClientRects().length > 0,
    );
    (row ?? results.current)?.focus();
  }, []);
  const close = useCallback(() => {
    const id = openedFrom.current ?? selected;
    select(null);
    focusRow("data-attempt-id", id);
  }, [select, selected, focusRow]);
  const messageKey = message ? `${message.messageRowId}.${message.destinationId}` : null;
  const closeMessage = useCallback(() => {
    openMessage(null);
    focusRow("data-row-key", messageKey);
  }, [openMessage, messageKey, focusRow]);

  return (
    <>
      <PageHeader title="Request log" description={DESCRIPTION[view]} actions={canReplay ? <ReplayMatching filter={filter} /> : null} />
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <ViewToggle view={view} onChange={setView} />
        <a
          href="#results"
          className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 ring-2 ring-indigo-600 focus:not-sr-only focus:inline-block"
        >
          Skip to results
        </a>
      </div>
      <FilterBar filter={filter} view={view} onChange={setFilter} onClear={clearFilter} />
      <div>
        {/* tabIndex -1: "Skip to results" moves focus here, so the next Tab is the first row. */}
        <section id="results" ref={results} tabIndex={-1} aria-label="Results" className="min-w-0 focus:outline-none">
          {pages.isPending ? (
            <Spinner label={`Loading ${noun}s…`} />
          ) : pages.isError ? (
            <ErrorNote error={pages.error} />
          ) : count === 0 ? (
            filtered ? (
              <EmptyState
                title={`No ${noun}s match these filters`}
                action={
                  <Button variant="secondary" onClick={clearFilter}>
                    Clear filters
                  </Button>
                }
              >
                Widen the time range or remove a filter.
              </EmptyState>
            ) : (
              <EmptyState title={`No ${noun}s yet`}>
                They appear here as soon as a destination receives an event.{" "}
                <Link href="/destinations" className="text-indigo-700 underline">
                  Set up a destination
                </Link>{" "}
                and send a test event, or send calls to a connected source.
              </EmptyState>
            )
          ) : (
            <Card className="overflow-hidden">
              {view === "attempts" ? (
                <AttemptsTable attempts={attempts} selected={selected} onSelect={open} />
              ) : (
                <MessagesTable
                  rows={rows}
                  selected={messageKey}
                  onSelect={(r) => (rowKey(r) === messageKey ? openMessage(null) : openMessage(r))}
                />
              )}
              <div className="flex items-center justify-between border-t border-slate-100 px-4 py-3 text-xs text-slate-500">
                <span>{plural(count, noun)} shown</span>
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
        {view === "attempts" && selected ? <AttemptPanel id={selected} onClose={close} onSelect={select} /> : null}
        {view === "messages" && message ? (
          <MessagePanel
            messageRowId={message.messageRowId}
            destinationId={message.destinationId}
            attempt={selected}
            onClose={closeMessage}
            onSelect={(id) => openMessage(message, id)}
          />
        ) : null}
      </div>
    </>
  );
}
