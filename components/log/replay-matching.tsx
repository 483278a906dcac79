"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorNote } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { plural } from "@/components/ui/format";
import { useReplayCount, useReplayMatchingMutation, type LogFilter } from "./hooks";

/** Replays the failed deliveries that have an attempt matching the filter, after showing how many. */
export function ReplayMatching({ filter, label = "Replay failed…" }: { filter: LogFilter; label?: string }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<number | null>(null);
  const count = useReplayCount(filter, { enabled: open });
  const replay = useReplayMatchingMutation();

  return (
    <>
      {done !== null ? (
        <span role="status" className="text-sm text-emerald-700">
          Replaying {plural(done, "delivery", "deliveries")}
        </span>
      ) : null}
      <Button
        variant="secondary"
        onClick={() => {
          setDone(null);
          setOpen(true);
        }}
      >
        {label}
      </Button>
      <ConfirmDialog
        open={open}
        title="Replay failed deliveries"
        confirmLabel={count.data?.count ? `Replay ${count.data.count}` : "Replay"}
        busy={replay.isPending}
        confirmDisabled={!count.data?.count}
        onCancel={() => setOpen(false)}
        onConfirm={() =>
          replay.mutate(filter, {
            onSuccess: (r) => {
              setOpen(false);
              setDone(r.replayed);
            },
          })
        }
      >
        {count.isPending ? (
          <p>Counting matching deliveries…</p>
        ) : count.isError ? (
          <ErrorNote error={count.error} />
        ) : (
          <>
            {count.data.count === 0 ? (
              <p>No failed deliveries match {Object.keys(filter).length ? "the current filters" : ""} — nothing to replay.</p>
            ) : (
              <p>
                <strong data-testid="replay-count">{count.data.count}</strong> failed{" "}
                {count.data.count === 1 ? "delivery matches" : "deliveries match"}{" "}
                {Object.keys(filter).length ? "the current filters" : "(no filters: every failed delivery)"}. Each is sent again from the
                first attempt, with a fresh retry window.
              </p>
            )}
            {count.data.stillRetrying > 0 ? (
              <p data-testid="replay-still-retrying">
                {plural(count.data.stillRetrying, "more is", "more are")} still retrying and not replayed:{" "}
                {count.data.stillRetrying === 1 ? "it is" : "they are"} retried on {count.data.stillRetrying === 1 ? "its" : "their"} own,
                and can be replayed if {count.data.stillRetrying === 1 ? "it fails" : "they fail"}.
              </p>
            ) : null}
          </>
        )}
        <ErrorNote error={replay.error} />
      </ConfirmDialog>
    </>
  );
}
