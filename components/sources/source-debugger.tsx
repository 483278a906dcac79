"use client";

import { ChoiceGroup } from "@/components/ui/choice-group";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { TimeAgo } from "@/components/ui/format";
import { CodeBlock } from "@/components/ui/json";
import type { SourceEventDto } from "@/lib/sources/contract";
import { useSourceEvents } from "./hooks";

type Show = "all" | "accepted" | "rejected";

/** Segment-style debugger: the source's recent calls, live, each expandable to its JSON. */
export function SourceDebugger({ sourceId }: { sourceId: string }) {
  const [live, setLive] = useState(true);
  const [show, setShow] = useState<Show>("all");
  const [open, setOpen] = useState<Set<string>>(new Set());
  const events = useSourceEvents(sourceId, { live });
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // "Accepted" and "Rejected" are what clients sent; Eventrail's own delete notices show under "All".
  const list = (events.data ?? []).filter((e) => show === "all" || (e.origin === "api" && (show === "accepted") === e.accepted));
  const rejected = events.data?.filter((e) => !e.accepted).length ?? 0;

  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-100 px-5 py-3">
        <div>
          <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
            Debugger
            {live ? (
              <span className="inline-flex items-center gap-1 text-xs font-normal text-emerald-700">
                <span className="h-2 w-2 motion-safe:animate-pulse rounded-full bg-emerald-500" aria-hidden /> live
              </span>
            ) : (
              <span className="text-xs font-normal text-slate-500">paused</span>
            )}
          </h2>
          <p className="text-xs text-slate-500">The latest calls to this source, accepted and rejected, newest first.</p>
        </div>
        <div className="flex items-center gap-2">
          <ChoiceGroup
            label="Show calls"
            options={(["all", "accepted", "rejected"] as const).map((s) => ({
              value: s,
              label: (
                <span className="capitalize">
                  {s}
                  {s === "rejected" && rejected ? ` (${rejected})` : ""}
                </span>
              ),
            }))}
            value={show}
            onChange={setShow}
          />
          <Button variant="secondary" onClick={() => setLive((l) => !l)}>
            {live ? "Pause" : "Resume"}
          </Button>
        </div>
      </div>
      {events.isPending ? (
        <div className="px-5">
          <Spinner label="Loading recent calls…" />
        </div>
      ) : events.isError ? (
        <div className="p-5">
          <ErrorNote error={events.error} />
        </div>
      ) : list.length === 0 ? (
        <div className="p-5">
          <EmptyState title={events.data.length ? `No ${show} calls among the latest` : "No calls yet"}>
            {events.data.length
              ? "Switch the filter to see the others."
              : "Send a call with the write key above (try the curl command) and it appears here within seconds."}
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

/** How a row reads: a client's call (accepted or rejected), an erased call, or Eventrail's own delete notice. */
function rowLook(e: SourceEventDto): { badge: string; tone: "green" | "red" | "slate" | "indigo" | "amber" } {
  if (e.origin === "deletion") return { badge: "Delete notice", tone: "indigo" };
  if (!e.accepted) return { badge: "Rejected", tone: "red" };
  if (e.erased) return { badge: "Erased", tone: "slate" };
  // The tracking plan's verdict (docs/tracking-plans.md#violations): accepted either way.
  if (e.blocked) return { badge: "Blocked", tone: "red" };
  if (e.violations.length > 0) return { badge: "Flagged", tone: "amber" };
  return { badge: "Accepted", tone: "green" };
}

function EventRow({ event: e, expanded, onToggle }: { event: SourceEventDto; expanded: boolean; onToggle: () => void }) {
  const label = `${e.type ?? "call"} ${e.messageId ?? ""}`.trim();
  const look = rowLook(e);
  const cells = (
    <>
      <Badge tone={look.tone}>{look.badge}</Badge>
      <span className="w-20 shrink-0 font-mono text-xs font-semibold text-slate-700">{e.type ?? "—"}</span>
      {/* On a phone the summary takes its own line instead of being squeezed to "u…". */}
      <span className="order-last min-w-0 basis-full truncate pl-7 sm:order-none sm:basis-0 sm:flex-1 sm:pl-0">
        {e.erased ? (
          <span className="text-slate-500">Erased by a deletion request</span>
        ) : e.origin === "deletion" ? (
          <span className="text-slate-700">
            Sent by Eventrail for deletion request <span className="font-mono">{e.deletionRequestId?.slice(0, 8)}</span>
            {userOf(e.payload) ? (
              <>
                {" "}
                · user <bdi>{userOf(e.payload)}</bdi>
              </>
            ) : null}
          </span>
        ) : e.accepted ? (
          <PayloadSummary payload={e.payload} />
        ) : (
          <span className="text-red-700">{e.reason}</span>
        )}
      </span>
      <bdi className="hidden max-w-48 truncate font-mono text-xs text-slate-500 md:block">{e.messageId}</bdi>
      <span className="ml-auto w-20 shrink-0 text-right text-xs text-slate-500">
        <TimeAgo iso={e.receivedAt} />
      </span>
    </>
  );
  // An erased call has nothing left to expand: it is a plain row, not a button that opens onto null.
  if (e.erased)
    return (
      <li aria-label={`Erased ${label}`} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-5 py-2.5 pl-10 text-sm">
        {cells}
      </li>
    );
  return (
    <li>
      <button
        type="button"
        aria-expanded={expanded}
        onClick={onToggle}
        className="flex w-full flex-wrap items-center gap-x-3 gap-y-1 px-5 py-2.5 text-left text-sm hover:bg-slate-50"
      >
        <span aria-hidden className={`text-xs text-slate-500 motion-safe:transition-transform ${expanded ? "rotate-90" : ""}`}>
          ▶
        </span>
        {cells}
      </button>
      {expanded ? (
        <div className="space-y-2 bg-slate-50 px-5 py-3">
          {!e.accepted && e.reason ? <p className="text-sm text-red-700">Reason: {e.reason}</p> : null}
          {e.violations.length > 0 ? (
            <div className="text-sm">
              <p className={e.blocked ? "text-red-700" : "text-amber-800"}>
                {e.blocked
                  ? "Blocked by the source's tracking plan: stored, not delivered."
                  : "Flagged by the source's tracking plan: delivered with these violations."}
              </p>
              <ul aria-label="Tracking plan violations" className="mt-1 space-y-0.5">
                {e.violations.map((v, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a call's violations are a fixed list
                  <li key={i} className="[overflow-wrap:anywhere]">
                    <span className="font-mono text-xs text-slate-700">{v.path}</span> · <span className="font-mono text-xs">{v.rule}</span>{" "}
                    · {v.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {e.origin === "deletion" && e.deletionRequestId ? (
            <p className="text-sm text-slate-700">
              Eventrail sent this notice to the source&apos;s webhooks when{" "}
              <Link href={`/deletions/${e.deletionRequestId}`} className="text-indigo-700 underline">
                deletion request {e.deletionRequestId.slice(0, 8)}
              </Link>{" "}
              erased the user; no client sent it.
            </p>
          ) : null}
          <div className="flex justify-end">
            <CopyButton value={JSON.stringify(e.payload, null, 2)} label="Copy JSON" />
          </div>
          <CodeBlock value={e.payload ?? null} label="Call JSON" />
        </div>
      ) : null}
    </li>
  );
}

const userOf = (payload: unknown) =>
  payload && typeof payload === "object" && typeof (payload as { userId?: unknown }).userId === "string"
    ? (payload as { userId: string }).userId
    : null;

/**
 * "Order Completed · user u_1": what the call was about and who made it. Each part is a client's
 * text, isolated on its own, so a direction override inside the event name cannot reorder the user.
 */
function PayloadSummary({ payload }: { payload: unknown }) {
  if (!payload || typeof payload !== "object") return null;
  const p = payload as Record<string, unknown>;
  const text = (v: unknown) => (v == null || v === "" ? null : String(v));
  const who = text(p.userId ?? p.anonymousId);
  const what = text(p.event ?? p.name ?? p.groupId ?? p.previousId);
  return (
    <span className="text-slate-700">
      {what ? <bdi>{what}</bdi> : null}
      {what && who ? " · " : null}
      {who ? (
        <>
          user <bdi>{who}</bdi>
        </>
      ) : null}
    </span>
  );
}
