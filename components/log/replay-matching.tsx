"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { ErrorNote } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { logKeys, normaliseFilter, type LogFilter } from "./queries";

/** Replays the failed deliveries that have an attempt matching the filter, after showing how many. */
export function ReplayMatching({ filter }: { filter: LogFilter }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<number | null>(null);
  const body = { filter: normaliseFilter(filter) };
  const count = useQuery({
    queryKey: logKeys.replayCount(filter),
    queryFn: ({ signal }) => api<{ count: number }>("/api/messages/replay", { method: "POST", body: { ...body, dryRun: true }, signal }).then((r) => r.count),
    enabled: open,
    staleTime: 0,
  });
  const replay = useMutation({
    mutationFn: () => api<{ replayed: number }>("/api/messages/replay", { method: "POST", body }),
    onSuccess: async (r) => {
      setOpen(false);
      setDone(r.replayed);
      await Promise.all([qc.invalidateQueries({ queryKey: logKeys.all }), qc.invalidateQueries({ queryKey: ["messages"] })]);
    },
  });

  return (
    <>
      {done !== null ? <span role="status" className="text-sm text-emerald-700">Replaying {done} deliver{done === 1 ? "y" : "ies"}</span> : null}
      <Button variant="secondary" onClick={() => { setDone(null); setOpen(true); }}>Replay failed…</Button>
      <ConfirmDialog
        open={open}
        title="Replay failed deliveries"
        confirmLabel={count.data ? `Replay ${count.data}` : "Replay"}
        busy={replay.isPending}
        confirmDisabled={!count.data}
        onCancel={() => setOpen(false)}
        onConfirm={() => replay.mutate()}
      >
        {count.isPending ? (
          <p>Counting matching deliveries…</p>
        ) : count.isError ? (
          <ErrorNote error={count.error} />
        ) : count.data === 0 ? (
          <p>No failed deliveries match the current filters — nothing to replay.</p>
        ) : (
          <p>
            <strong data-testid="replay-count">{count.data}</strong> failed deliver{count.data === 1 ? "y matches" : "ies match"}{" "}
            {Object.keys(filter).length ? "the current filters" : "(no filters: every failed delivery)"}. Each is sent again from the first attempt, with a
            fresh retry window.
          </p>
        )}
        <ErrorNote error={replay.error} />
      </ConfirmDialog>
    </>
  );
}
