"use client";

import { ShortValue } from "@/components/ui/short-url";
import { useEffect, useId, useRef, useState } from "react";
import type { AttemptDetailDto } from "@/lib/request-log/contract";
import { Button } from "@/components/ui/button";
import { Badge, ErrorNote } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { formatMs, plural } from "@/components/ui/format";
import { StatusBadge } from "./attempt-bits";
import { type AttemptGroup, groupAttemptChain, replayOutcome } from "./chain";
import { useMessage, useReplayMessageMutation } from "./hooks";
import { useCan } from "@/components/layout/role";
import { replayTargets } from "./replay-targets";

const STATE_TONE = { pending: "amber", delivered: "green", failed: "red" } as const;
const clock = (iso: string) => new Date(iso).toLocaleTimeString();

/**
 * Every attempt of the message, grouped by destination and URL (each group labelled with both), each
 * replay set off by a divider ("Replay 1 · 12:03:04"), the delivery states, and replay.
 */
export function AttemptChain({
  messageRowId,
  current,
  onSelect,
}: {
  messageRowId: string;
  current: string;
  onSelect: (id: string) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [everywhere, setEverywhere] = useState(false);
  const [inOrder, setInOrder] = useState(false);
  const [replayed, setReplayed] = useState<number | null>(null);
  // Each replay's answer takes focus (its status line): the button that opened the confirmation may be
  // disabled by then, while the replay is still being delivered. This effect runs after the
  // dialog's own (a child's effects run first), which would give focus back to that button.
  const [answers, setAnswers] = useState(0);
  const status = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (answers > 0) status.current?.focus();
  }, [answers]);
  const message = useMessage(messageRowId);
  const replay = useReplayMessageMutation();
  const canReplay = useCan("admin");

  if (message.isPending) return <p className="text-xs text-slate-500">Loading the message&apos;s attempts…</p>;
  if (message.isError) return <ErrorNote error={message.error} />;
  const { deliveries, attempts } = message.data;
  // Replays go where the message did not succeed; delivered destinations only when asked for.
  const replayable = replayTargets(deliveries, true).length;
  const targets = replayTargets(deliveries, everywhere);
  const failedCount = replayTargets(deliveries, false).length;
  const replayNumbers = new Map(deliveries.map((d) => [d.id, d.replayNumber]));
  const groups = groupAttemptChain(attempts, replayNumbers);
  // One line per destination: the state of its latest delivery (the original or its latest replay).
  const latest = latestPerDestination(deliveries);

  return (
    <section aria-label="Attempt chain" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">
          This message · {plural(attempts.length, "attempt")}
        </h3>
        {canReplay ? (
          <Button
            variant="secondary"
            onClick={() => setConfirming(true)}
            disabled={replayable === 0}
            title={replayable === 0 ? "Still being delivered" : undefined}
          >
            Replay message
          </Button>
        ) : null}
      </div>
      {replayed !== null ? (
        <p ref={status} tabIndex={-1} role="status" className="text-xs text-emerald-700 focus:outline-none">
          {replayOutcome(latest, replayed)}
        </p>
      ) : null}
      {message.data.message.roundedNumbers.length > 0 ? (
        <p className="text-xs text-amber-800" role="note">
          This message holds integers beyond 2^53, stored with every digit. Default bodies carry them as JavaScript writes them (a
          destination set to exact numbers sends the digits):{" "}
          {message.data.message.roundedNumbers.map((r, i) => (
            <span key={r.path}>
              {i > 0 ? ", " : null}
              <code>{r.path}</code> {r.digits} → {r.sent}
            </span>
          ))}
        </p>
      ) : null}
      <ul className="space-y-1" aria-label="Deliveries">
        {latest.map((d) => (
          <li key={d.id} className="flex flex-wrap items-center gap-2 text-xs">
            <Badge tone={d.held ? "slate" : STATE_TONE[d.state]}>{d.held ? "held" : d.state}</Badge>
            <bdi className="text-slate-700">{d.destinationName ?? "deleted destination"}</bdi>
            {d.replayNumber ? <span className="text-slate-500">· after replay {d.replayNumber}</span> : null}
            {d.held ? (
              <span className="text-slate-500">
                · held since {clock(d.held.since)} behind an earlier message of this user
                {d.held.byMessageId ? (
                  <>
                    {" "}
                    (<code>{d.held.byMessageId}</code>)
                  </>
                ) : null}
              </span>
            ) : null}
            {d.holdReleasedAt ? (
              <span className="text-amber-800">
                · released from hold at {clock(d.holdReleasedAt)}: held past the destination's limit, sent before an earlier message
              </span>
            ) : null}
            {d.state === "pending" && !d.held && d.nextAttemptAt ? (
              <span className="text-slate-500">· next try at {clock(d.nextAttemptAt)}</span>
            ) : null}
          </li>
        ))}
      </ul>
      {groups.map((g) => (
        <AttemptGroupView key={g.key} group={g} current={current} onSelect={onSelect} />
      ))}
      <ConfirmDialog
        open={confirming}
        title="Replay this message?"
        confirmLabel="Replay message"
        busy={replay.isPending}
        confirmDisabled={targets.length === 0}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          replay.mutate(
            { messageRowId, includeDelivered: everywhere, ordered: inOrder },
            {
              onSuccess: (r) => {
                setConfirming(false);
                setEverywhere(false);
                setInOrder(false);
                setReplayed(r.replayed);
                setAnswers((n) => n + 1);
              },
            },
          )
        }
      >
        {targets.length > 0 ? (
          <>
            It is sent again to {plural(targets.length, "destination")} (
            {targets.map((d) => d.destinationName ?? "deleted destination").join(", ")}) as a new delivery linked to the last one, with a
            fresh retry window{everywhere ? "" : ", only to the URLs that did not answer 2xx"}. Your endpoint receives the same messageId
            and webhook-id again. A replay goes at once, outside per-user ordering, unless you keep it in its user&apos;s order below.
          </>
        ) : (
          <>It was delivered everywhere: nothing failed, so there is nothing to replay.</>
        )}
        <label className="mt-3 flex items-start gap-2">
          <input
            type="checkbox"
            className="mt-0.5"
            checked={everywhere}
            onChange={(e) => setEverywhere(e.target.checked)}
            disabled={failedCount === replayable}
          />
          <span>Also send it again where it was delivered</span>
        </label>
        <label className="mt-2 flex items-start gap-2">
          <input type="checkbox" className="mt-0.5" checked={inOrder} onChange={(e) => setInOrder(e.target.checked)} />
          <span>
            Keep it in its user&apos;s order where a destination orders per user: it waits for their messages still pending, and later ones
            wait for it
          </span>
        </label>
        <ErrorNote error={replay.error} />
      </ConfirmDialog>
    </section>
  );
}

type Delivery = { id: string; destinationId: string; replayNumber: number };

/** Per destination, the newest delivery of its chain, in the order destinations first appear. */
function latestPerDestination<D extends Delivery>(deliveries: D[]): D[] {
  const latest = new Map<string, D>();
  for (const d of deliveries) {
    const seen = latest.get(d.destinationId);
    if (!seen || d.replayNumber > seen.replayNumber) latest.set(d.destinationId, d);
  }
  return [...latest.values()];
}

function AttemptGroupView({
  group,
  current,
  onSelect,
}: {
  group: AttemptGroup<AttemptDetailDto>;
  current: string;
  onSelect: (id: string) => void;
}) {
  const headingId = useId();
  const name = group.destinationName ?? "Deleted destination";
  return (
    <section aria-labelledby={headingId} className="rounded-md ring-1 ring-slate-200">
      <h4
        id={headingId}
        className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5 border-b border-slate-100 px-3 py-2 text-xs"
      >
        <span className="min-w-0">
          <bdi className="font-semibold text-slate-900">{name}</bdi>
          <ShortValue value={group.url} max={64} className="block font-mono text-slate-500" />
        </span>
        <span className="shrink-0 text-slate-500">{plural(group.count, "attempt")}</span>
      </h4>
      {group.runs.map((run) => (
        <div key={run.attempts[0].id}>
          {run.replay > 0 ? (
            <div className="flex items-center gap-2 px-3 pt-2 text-xs text-indigo-700">
              <span aria-hidden className="h-px flex-1 bg-indigo-200" />
              <span>
                Replay {run.replay} · <time dateTime={run.startedAt}>{clock(run.startedAt)}</time>
              </span>
              <span aria-hidden className="h-px flex-1 bg-indigo-200" />
            </div>
          ) : null}
          <ol
            className="divide-y divide-slate-100"
            aria-label={`Attempts to ${name} at ${group.url}${run.replay ? `, replay ${run.replay}` : ""}`}
          >
            {run.attempts.map((a) => (
              <li key={a.id}>
                <button
                  type="button"
                  aria-current={a.id === current ? "true" : undefined}
                  onClick={() => onSelect(a.id)}
                  className={`flex w-full items-center gap-2 px-3 py-1.5 text-left text-xs ${a.id === current ? "bg-indigo-50" : "hover:bg-slate-50"}`}
                >
                  <span className="w-8 shrink-0 tabular-nums text-slate-500">#{a.attemptNumber}</span>
                  <StatusBadge attempt={a} />
                  <span className="flex-1" />
                  <span className="whitespace-nowrap tabular-nums text-slate-500">{formatMs(a.durationMs)}</span>
                  <time
                    dateTime={a.startedAt}
                    title={new Date(a.startedAt).toLocaleString()}
                    className="w-20 whitespace-nowrap text-right text-slate-500"
                  >
                    {clock(a.startedAt)}
                  </time>
                </button>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </section>
  );
}
