"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, ErrorNote } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { formatMs } from "@/components/ui/format";
import { StatusBadge } from "./attempt-bits";
import { fetchMessage, logKeys } from "./queries";

const STATE_TONE = { pending: "amber", delivered: "green", failed: "red" } as const;

/** Every attempt of the message (all destinations, oldest first), its delivery states, and replay. */
export function AttemptChain({ messageRowId, current, onSelect }: { messageRowId: string; current: string; onSelect: (id: string) => void }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [replayed, setReplayed] = useState<number | null>(null);
  const message = useQuery({
    queryKey: logKeys.message(messageRowId),
    queryFn: ({ signal }) => fetchMessage(messageRowId, signal),
    // While a delivery is still pending its retries keep arriving.
    refetchInterval: (q) => (q.state.data?.deliveries.some((d) => d.state === "pending") ? 2_000 : false),
  });
  const replay = useMutation({
    mutationFn: () => api<{ replayed: number }>("/api/messages/replay", { method: "POST", body: { ids: [messageRowId], includeDelivered: true } }),
    onSuccess: async (r) => {
      setConfirming(false);
      setReplayed(r.replayed);
      await Promise.all([qc.invalidateQueries({ queryKey: logKeys.message(messageRowId) }), qc.invalidateQueries({ queryKey: logKeys.all })]);
    },
  });

  if (message.isPending) return <p className="text-xs text-slate-500">Loading the message&apos;s attempts…</p>;
  if (message.isError) return <ErrorNote error={message.error} />;
  const { deliveries, attempts } = message.data;
  const replayable = deliveries.filter((d) => d.state !== "pending").length;

  return (
    <section aria-label="Attempt chain" className="space-y-2">
      <div className="flex items-center justify-between">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">This message</h3>
        <Button variant="secondary" onClick={() => setConfirming(true)} disabled={replayable === 0} title={replayable === 0 ? "Still being delivered" : undefined}>
          Replay message
        </Button>
      </div>
      {replayed !== null ? <p role="status" className="text-xs text-emerald-700">Replaying to {replayed} destination{replayed === 1 ? "" : "s"}…</p> : null}
      <ul className="space-y-1">
        {deliveries.map((d) => (
          <li key={d.id} className="flex items-center gap-2 text-xs">
            <Badge tone={STATE_TONE[d.state]}>{d.state}</Badge>
            <span className="text-slate-700">{d.destinationName ?? "deleted destination"}</span>
            <span className="text-slate-400">· {d.attemptCount} attempt{d.attemptCount === 1 ? "" : "s"}</span>
            {d.state === "pending" && d.nextAttemptAt ? <span className="text-slate-400">· next {new Date(d.nextAttemptAt).toLocaleTimeString()}</span> : null}
          </li>
        ))}
      </ul>
      <ol className="divide-y divide-slate-100 rounded-md ring-1 ring-slate-200" aria-label="Attempts of this message">
        {attempts.map((a) => (
          <li key={a.id}>
            <button
              type="button"
              aria-current={a.id === current ? "true" : undefined}
              onClick={() => onSelect(a.id)}
              className={`flex w-full items-center gap-2 px-3 py-1.5 text-left text-xs ${a.id === current ? "bg-indigo-50" : "hover:bg-slate-50"}`}
            >
              <span className="w-6 tabular-nums text-slate-500">#{a.attemptNumber}</span>
              <StatusBadge attempt={a} />
              <span className="min-w-0 flex-1 truncate font-mono text-slate-500">{a.url}</span>
              <span className="tabular-nums text-slate-500">{formatMs(a.durationMs)}</span>
              <span className="w-20 text-right text-slate-400">{new Date(a.startedAt).toLocaleTimeString()}</span>
            </button>
          </li>
        ))}
      </ol>
      <ConfirmDialog
        open={confirming}
        title="Replay this message?"
        confirmLabel="Replay message"
        busy={replay.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => replay.mutate()}
      >
        It is sent again to {replayable} destination{replayable === 1 ? "" : "s"} ({deliveries.filter((d) => d.state !== "pending").map((d) => d.destinationName).join(", ")}), starting a fresh retry window. Your
        endpoint receives the same messageId again.
        <ErrorNote error={replay.error} />
      </ConfirmDialog>
    </section>
  );
}
