"use client";

import { ErrorNote, Spinner } from "@/components/ui/card";
import { plural } from "@/components/ui/format";
import { AttemptDetail, LogDrawer } from "./attempt-panel";
import { useMessage } from "./hooks";
import { MessageStatusBadge } from "./messages-table";
import type { MessageStatus } from "@/lib/request-log/contract";

const clock = (iso: string) => new Date(iso).toLocaleString();

/**
 * A message at one destination (the log by message's drawer): titled by its event and destination, how
 * it stands there, then the attempt chosen in its chain — its latest unless one is picked — in full,
 * with the whole chain and replay (docs/dashboard.md#the-log-by-message).
 */
export function MessagePanel({
  messageRowId,
  destinationId,
  attempt,
  onClose,
  onSelect,
}: {
  messageRowId: string;
  destinationId: string;
  attempt: string | null;
  onClose: () => void;
  onSelect: (attemptId: string) => void;
}) {
  const message = useMessage(messageRowId);
  const data = message.data;
  const chain = data?.deliveries.filter((d) => d.destinationId === destinationId) ?? [];
  const latest = chain[chain.length - 1];
  const attempts = data?.attempts.filter((a) => a.destinationId === destinationId) ?? [];
  const current = attempt ?? attempts[attempts.length - 1]?.id ?? null;
  const m = data?.message;
  const event = m ? ((m.payload as { event?: string } | null)?.event ?? m.type) : null;
  const title = data ? `${event} → ${latest?.destinationName ?? "deleted destination"}` : "Loading the message…";
  const status: MessageStatus | null = latest
    ? latest.state === "pending"
      ? attempts.length > 0
        ? "retrying"
        : "waiting"
      : latest.state
    : null;

  return (
    <LogDrawer
      label="Message detail"
      title={title}
      subtitle={m ? `${m.type} · ${m.messageId}` : null}
      focusKey={`${messageRowId}.${destinationId}.${attempt ?? ""}`}
      onClose={onClose}
    >
      {message.isPending ? (
        <Spinner label="Loading the message…" />
      ) : message.isError ? (
        <ErrorNote error={message.error} />
      ) : (
        <>
          <section aria-label="How it stands" className="flex flex-wrap items-center gap-2 text-xs text-slate-700">
            {status ? <MessageStatusBadge status={status} /> : null}
            <span>{plural(attempts.length, "attempt")}</span>
            {chain.length > 1 ? <span>· replayed {chain.length === 2 ? "once" : plural(chain.length - 1, "time")}</span> : null}
            {status === "retrying" && latest?.nextAttemptAt ? <span>· next try at {clock(latest.nextAttemptAt)}</span> : null}
            {latest?.deliveredAt ? <span>· delivered at {clock(latest.deliveredAt)}</span> : null}
          </section>
          {current ? (
            <AttemptDetail id={current} onSelect={onSelect} />
          ) : (
            <p className="text-sm text-slate-600">
              Not attempted yet: it is queued, waiting in a batch, held for order, throttled or its destination is paused.
            </p>
          )}
        </>
      )}
    </LogDrawer>
  );
}
