"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, EmptyState, ErrorNote, Spinner } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { TimeAgo } from "@/components/ui/format";
import { useClearCapturedRequestsMutation, useLiveRequests } from "./hooks";
import { RequestView } from "./request-view";
import { SignedMark } from "./signatures";
import { summary } from "./summary";
import { useCan } from "@/components/layout/role";

/**
 * webhook.site-style: the live list on the left (previews only), the selected request on the right
 * (fetched whole when opened), its signatures checked against `destinationId`.
 */
export function RequestsPane({ binId, url, destinationId }: { binId: string; url: string; destinationId: string | null }) {
  const requests = useLiveRequests(binId);
  // null follows the newest request as new ones arrive; a click pins one.
  const [pinned, setPinned] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const clear = useClearCapturedRequestsMutation();
  const canClear = useCan("admin");

  if (requests.isPending) return <Spinner label="Loading requests…" />;
  if (requests.isError) return <ErrorNote error={requests.error} />;
  const list = requests.data;
  const selected = list.find((r) => r.id === pinned) ?? list[0];

  return (
    <Card>
      <div className="flex items-center justify-between border-b border-slate-100 px-4 py-3">
        <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
          Requests <span className="rounded-full bg-slate-100 px-2 text-xs font-medium text-slate-600">{list.length}</span>
          <span className="inline-flex items-center gap-1 text-xs font-normal text-emerald-700">
            <span className="h-2 w-2 motion-safe:animate-pulse rounded-full bg-emerald-500" aria-hidden /> live
          </span>
        </h2>
        {canClear && list.length ? (
          <Button variant="ghost" onClick={() => setConfirming(true)}>
            Clear
          </Button>
        ) : null}
      </div>
      <ConfirmDialog
        open={confirming}
        title="Clear all captured requests?"
        confirmLabel="Clear requests"
        tone="danger"
        busy={clear.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          clear.mutate(binId, {
            onSuccess: () => {
              setConfirming(false);
              setPinned(null);
            },
          })
        }
      >
        The URL keeps working; only the requests seen so far are removed.
        <ErrorNote error={clear.error} />
      </ConfirmDialog>
      {list.length === 0 ? (
        <div className="p-4">
          <EmptyState title="Waiting for the first request…">
            Send anything to <code className="break-all">{url}</code> — a test event from a destination, or curl — and it shows up here
            within a second.
          </EmptyState>
        </div>
      ) : (
        <div className="grid min-h-96 md:grid-cols-[15rem_minmax(0,1fr)]">
          <ul aria-label="Captured requests" className="max-h-[40rem] overflow-y-auto border-b border-slate-100 md:border-b-0 md:border-r">
            {list.map((r) => {
              const active = r.id === selected?.id;
              return (
                <li key={r.id}>
                  <button
                    type="button"
                    aria-current={active ? "true" : undefined}
                    onClick={() => setPinned(r.id)}
                    className={`flex w-full items-center gap-2 border-l-2 px-3 py-2 text-left text-xs ${active ? "border-indigo-600 bg-indigo-50" : "border-transparent hover:bg-slate-50"}`}
                  >
                    <span className="w-14 shrink-0 font-mono font-semibold text-slate-700">{r.method}</span>
                    <span className="min-w-0 flex-1">
                      <span className="block truncate text-slate-900">
                        <bdi>{summary(r.preview) ?? r.path}</bdi>
                      </span>
                      <span className="block text-slate-500">
                        #{r.id} · <TimeAgo iso={r.receivedAt} />
                      </span>
                    </span>
                    <SignedMark req={r} />
                  </button>
                </li>
              );
            })}
          </ul>
          <div className="min-w-0 p-4">
            {selected ? <RequestView key={selected.id} binId={binId} summary={selected} destinationId={destinationId} /> : null}
          </div>
        </div>
      )}
    </Card>
  );
}
