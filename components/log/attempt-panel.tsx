"use client";

import { useEffect, useRef } from "react";
import type { AttemptDetailDto } from "@/lib/request-log/contract";
import { Button } from "@/components/ui/button";
import { Badge, ErrorNote, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { formatMs } from "@/components/ui/format";
import { CodeBlock, HeadersTable } from "@/components/ui/json";
import { ShortValue } from "@/components/ui/short-url";
import { OutcomeBadge, StatusBadge } from "./attempt-bits";
import { AttemptChain } from "./attempt-chain";
import { CopyCurl } from "./copy-curl";
import { useAttempt } from "./hooks";
import { describeFailure } from "@/components/ui/describe-error";

function Section({ title, children, copy }: { title: string; children: React.ReactNode; copy?: string | null }) {
  return (
    <section className="space-y-2">
      <div className="flex items-center justify-between">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</h3>
        {copy ? <CopyButton value={copy} label={`Copy ${title.toLowerCase()}`} /> : null}
      </div>
      {children}
    </section>
  );
}

/** How many lines of the endpoint's answer the drawer shows first; the whole body is further down. */
const ANSWER_LINES = 6;
const ANSWER_CHARS = 600;

export function answerPreview(body: string): { text: string; cut: boolean } {
  const lines = body.split("\n");
  let text = lines.slice(0, ANSWER_LINES).join("\n");
  if (text.length > ANSWER_CHARS) text = text.slice(0, ANSWER_CHARS);
  return { text, cut: text.length < body.length };
}

/** First in the drawer: how it ended, the error, and what the endpoint answered (its first lines). */
function Outcome({ a }: { a: AttemptDetailDto }) {
  const answer = a.responseBody ? answerPreview(a.responseBody) : null;
  return (
    <section aria-label="Outcome" className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <StatusBadge attempt={a} />
        <OutcomeBadge outcome={a.outcome} />
        <Badge>{a.type}</Badge>
        <output className="text-sm tabular-nums text-slate-700" aria-label="Duration">
          {formatMs(a.durationMs)}
        </output>
      </div>
      {a.errorText ? (
        <p role="note" className="rounded-md bg-red-50 px-3 py-2 text-xs text-red-700 ring-1 ring-red-200">
          {describeFailure(a)}
        </p>
      ) : null}
      {a.responseStatus == null ? (
        <p className="text-xs text-slate-500">The endpoint did not answer.</p>
      ) : answer ? (
        <div className="space-y-1">
          <h3 className="text-xs font-semibold text-slate-500">The endpoint answered {a.responseStatus}</h3>
          <CodeBlock value={answer.text} label="The endpoint's answer, first lines" maxHeight="max-h-40" plain />
          {answer.cut ? (
            <a href="#response-body" className="text-xs text-indigo-700 underline">
              The whole response body
            </a>
          ) : null}
        </div>
      ) : (
        <p className="text-xs text-slate-500">The endpoint answered {a.responseStatus} with an empty body.</p>
      )}
      <p className="font-mono text-xs text-slate-700">
        {a.method} <ShortValue value={a.url} max={72} />
      </p>
      {a.sentTo ? (
        // A URL template as configured above; here the URL this call rendered it to (docs/request-shape.md#url-templates).
        <p className="break-all font-mono text-xs text-slate-700">
          <span className="font-sans text-slate-500">Sent to </span>
          <span data-testid="attempt-sent-to">{a.sentTo}</span>
        </p>
      ) : null}
    </section>
  );
}

/**
 * The log's drawer: titled by the event and where it went ("Order Completed → Orders"), never by a row
 * number. It takes focus when it opens or shows another attempt (`focusKey`), so the keyboard continues
 * inside it; Escape closes it unless a confirmation inside is open.
 */
export function LogDrawer({
  label,
  title,
  subtitle,
  focusKey,
  onClose,
  children,
}: {
  /** The drawer's name: "Attempt detail" in the flat view, "Message detail" by message. */
  label: string;
  title: React.ReactNode;
  subtitle?: React.ReactNode;
  focusKey: string;
  onClose: () => void;
  children: React.ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // Escape inside an open confirmation belongs to that dialog.
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && !document.querySelector("dialog[open]") && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves on each new attempt or message
  useEffect(() => heading.current?.focus(), [focusKey]);
  return (
    <aside
      aria-label={label}
      className="fixed inset-y-0 right-0 z-20 flex w-full max-w-xl flex-col border-l border-slate-200 bg-white shadow-2xl"
    >
      <div className="flex items-start justify-between gap-2 border-b border-slate-100 px-4 py-3">
        <div className="min-w-0">
          <h2
            ref={heading}
            tabIndex={-1}
            data-focus-target
            className="text-sm font-semibold text-slate-900 [overflow-wrap:anywhere] focus:outline-none"
          >
            {title}
          </h2>
          {subtitle ? <p className="truncate text-xs text-slate-500">{subtitle}</p> : null}
        </div>
        <Button variant="ghost" aria-label="Close detail" onClick={onClose}>
          ✕
        </Button>
      </div>
      <div className="min-h-0 flex-1 space-y-5 overflow-y-auto p-4">{children}</div>
    </aside>
  );
}

/** "Order Completed → Orders": what the attempt carried, and where. */
export const attemptTitle = (a: Pick<AttemptDetailDto, "event" | "type" | "destinationName">) =>
  `${a.event ?? a.type} → ${a.destinationName ?? "deleted destination"}`;

/** One attempt in full (the flat view's drawer): how it ended and what came back first, then the message's attempt chain, then what was sent. */
export function AttemptPanel({ id, onClose, onSelect }: { id: string; onClose: () => void; onSelect: (id: string) => void }) {
  const attempt = useAttempt(id);
  return (
    <LogDrawer
      label="Attempt detail"
      focusKey={id}
      onClose={onClose}
      title={attempt.data ? attemptTitle(attempt.data) : "Loading the attempt…"}
      subtitle={attempt.data ? `Attempt ${attempt.data.attemptNumber} · ${new Date(attempt.data.startedAt).toLocaleString()}` : null}
    >
      <AttemptDetail id={id} onSelect={onSelect} />
    </LogDrawer>
  );
}

/** An attempt's detail, loaded by id. */
export function AttemptDetail({ id, onSelect }: { id: string; onSelect: (id: string) => void }) {
  const attempt = useAttempt(id);
  if (attempt.isPending) return <Spinner />;
  if (attempt.isError) return <ErrorNote error={attempt.error} />;
  return <AttemptBody a={attempt.data} onSelect={onSelect} />;
}

/** A batch's attempt (docs/request-shape.md#batches-in-the-request-log): its id and the events it carried, in the body's order. */
function BatchEvents({ a }: { a: AttemptDetailDto }) {
  const events = a.batchEvents ?? [];
  return (
    <Section title={`Batch · ${a.batch!.events} event${a.batch!.events === 1 ? "" : "s"}`}>
      <p className="font-mono text-xs [overflow-wrap:anywhere] text-slate-500">
        <bdi>batch_{a.batch!.id}</bdi>
      </p>
      <details className="text-xs">
        <summary className="cursor-pointer text-slate-700">Events in this batch</summary>
        <ol className="mt-2 max-h-60 space-y-1 overflow-y-auto" aria-label="Events in this batch">
          {events.map((e) => (
            <li key={e.deliveryId} className="flex min-w-0 gap-2">
              <span className="shrink-0 text-slate-500">{e.type}</span>
              <span className="font-mono [overflow-wrap:anywhere]">
                <bdi>{e.messageId}</bdi>
              </span>
              {e.userId ? (
                <span className="text-slate-500 [overflow-wrap:anywhere]">
                  <bdi>{e.userId}</bdi>
                </span>
              ) : null}
            </li>
          ))}
        </ol>
      </details>
    </Section>
  );
}

function AttemptBody({ a, onSelect }: { a: AttemptDetailDto; onSelect: (id: string) => void }) {
  return (
    <>
      <Outcome a={a} />
      <CopyCurl attempt={a} />
      <dl className="grid grid-cols-[7rem_minmax(0,1fr)] gap-x-2 gap-y-1 text-xs">
        {a.event ? (
          <>
            <dt className="text-slate-500">Event</dt>
            <dd>
              <bdi>{a.event}</bdi>
            </dd>
          </>
        ) : null}
        <dt className="text-slate-500">Destination</dt>
        <dd>
          <bdi>{a.destinationName ?? "deleted"}</bdi>
        </dd>
        <dt className="text-slate-500">Started</dt>
        <dd>{new Date(a.startedAt).toLocaleString()}</dd>
        <dt className="text-slate-500">Attempt</dt>
        <dd>{a.attemptNumber}</dd>
        <dt className="text-slate-500">Message ID</dt>
        <dd className="font-mono [overflow-wrap:anywhere]">
          <bdi>{a.messageId}</bdi>
        </dd>
        <dt className="text-slate-500">User ID</dt>
        <dd className="font-mono [overflow-wrap:anywhere]">
          <bdi>{a.userId ?? "—"}</bdi>
        </dd>
        {a.nextRetryAt ? (
          <>
            <dt className="text-slate-500">Next retry</dt>
            <dd>{new Date(a.nextRetryAt).toLocaleString()}</dd>
          </>
        ) : null}
      </dl>
      {a.batch ? <BatchEvents a={a} /> : null}
      <AttemptChain messageRowId={a.messageRowId} current={a.id} onSelect={onSelect} />
      <Section title="Request headers">
        <HeadersTable headers={a.requestHeaders} label="Request headers" />
      </Section>
      <Section title="Request body" copy={a.requestBody}>
        {a.requestBody == null ? (
          <p className="text-xs text-slate-500">Erased by a deletion request.</p>
        ) : (
          <CodeBlock value={a.requestBody} label="Request body" />
        )}
      </Section>
      <Section title="Response headers">
        <HeadersTable headers={a.responseHeaders} label="Response headers" />
      </Section>
      <div id="response-body">
        <Section title="Response body" copy={a.responseBody}>
          {a.responseStatus == null ? (
            <p className="text-xs text-slate-500">No response was received.</p>
          ) : (
            <CodeBlock value={a.responseBody ?? ""} label="Response body" />
          )}
          <p className="text-xs text-slate-500">The first 64 KB of the response is kept.</p>
        </Section>
      </div>
    </>
  );
}
