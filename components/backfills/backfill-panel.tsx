"use client";

import Link from "next/link";
import { useState } from "react";
import type { BackfillDto } from "@/lib/backfills/contract";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote } from "@/components/ui/card";
import { Field, inputClass } from "@/components/ui/field";
import { plural } from "@/components/ui/format";
import { useBackfillDryRunMutation, useBackfills, useCancelBackfillMutation, useStartBackfillMutation } from "./hooks";

/** `datetime-local` value (local time, minutes) for a time, and back to ISO. */
const toLocalInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : undefined);

const STATE_TONE = { running: "indigo", finished: "green", cancelled: "amber", failed: "red" } as const;

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/**
 * "Backfill" on a destination's page (docs/routing.md#backfill): choose sources and a window, count
 * what would be sent (the dry run), start it, and watch its progress (done / total, rate, time left)
 * or cancel it. `canEdit`: admins and owners start and cancel; viewers see the progress.
 */
export function BackfillPanel({
  destinationId,
  sources,
  canEdit,
}: {
  destinationId: string;
  /** the destination's connected sources, with their names */
  sources: { id: string; name: string }[];
  canEdit: boolean;
}) {
  const [chosen, setChosen] = useState<string[]>(() => sources.map((s) => s.id));
  const [from, setFrom] = useState(() => toLocalInput(new Date(Date.now() - 86_400_000)));
  const [to, setTo] = useState("");
  const [resend, setResend] = useState(false);
  const backfills = useBackfills(destinationId);
  const dryRun = useBackfillDryRunMutation(destinationId);
  const start = useStartBackfillMutation(destinationId);
  const input = { sourceIds: chosen, from: fromLocalInput(from) ?? "", to: fromLocalInput(to), resend };
  // The count shown belongs to the inputs it was made for; a change asks for a new count.
  const counted = dryRun.data && dryRun.variables && JSON.stringify(dryRun.variables) === JSON.stringify(input) ? dryRun.data : null;
  const error = dryRun.error ?? start.error;
  const fields = error instanceof ApiError ? (error.fields ?? {}) : {};
  const fieldError = (k: string) => fields[k]?.[0] ?? Object.entries(fields).find(([f]) => f.startsWith(`${k}.`))?.[1][0];

  return (
    <Card className="p-5">
      <h2 className="text-sm font-semibold text-slate-900">Backfill</h2>
      <p className="mt-1 text-xs text-slate-500">
        Send this destination the calls its sources already received, through its current filter. Each call goes once; calls it already has
        are skipped unless you choose to resend them. Live traffic goes first.
      </p>

      {canEdit ? (
        <form
          className="mt-4 space-y-3"
          aria-label="Start a backfill"
          onSubmit={(e) => {
            e.preventDefault();
            if (counted) start.mutate(input, { onSuccess: () => dryRun.reset() });
            else dryRun.mutate(input);
          }}
        >
          {sources.length === 0 ? (
            <p className="text-sm text-slate-500">Connect a source to this destination to backfill it.</p>
          ) : (
            <fieldset>
              <legend className="text-sm font-medium text-slate-700">Sources</legend>
              <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
                {sources.map((s) => (
                  <label key={s.id} className="flex items-center gap-2 text-sm text-slate-700">
                    <input
                      type="checkbox"
                      checked={chosen.includes(s.id)}
                      onChange={(e) => setChosen(e.target.checked ? [...chosen, s.id] : chosen.filter((x) => x !== s.id))}
                    />
                    {s.name}
                  </label>
                ))}
              </div>
              {fieldError("sourceIds") ? (
                <p role="alert" className="mt-1 text-xs text-red-600">
                  {fieldError("sourceIds")}
                </p>
              ) : null}
            </fieldset>
          )}
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Received from" htmlFor="backfill-from" error={fieldError("from")} hint="Within message retention">
              <input
                id="backfill-from"
                type="datetime-local"
                className={inputClass}
                value={from}
                onChange={(e) => setFrom(e.target.value)}
                required
                // A day ago in the reader's time zone: the server's first render wrote it in its own.
                suppressHydrationWarning
              />
            </Field>
            <Field label="Until" htmlFor="backfill-to" error={fieldError("to")} hint="Empty: now">
              <input id="backfill-to" type="datetime-local" className={inputClass} value={to} onChange={(e) => setTo(e.target.value)} />
            </Field>
          </div>
          <label className="flex items-center gap-2 text-sm text-slate-700">
            <input type="checkbox" checked={resend} onChange={(e) => setResend(e.target.checked)} />
            Also resend calls this destination already has
          </label>
          <div className="flex flex-wrap items-center gap-3">
            <Button
              type="submit"
              variant={counted ? "primary" : "secondary"}
              disabled={dryRun.isPending || start.isPending || chosen.length === 0}
            >
              {counted ? `Send ${plural(counted.count, "call")}` : dryRun.isPending ? "Counting…" : "Count calls"}
            </Button>
            {counted ? (
              <p role="status" className="text-sm text-slate-700">
                {counted.count === 0
                  ? "Nothing to send: no call in this window passes the filter, or the destination has them all."
                  : `${plural(counted.count, "call")} would be sent.`}
              </p>
            ) : null}
          </div>
          {error && Object.keys(fields).length === 0 ? <ErrorNote error={error} /> : null}
        </form>
      ) : null}

      <BackfillList destinationId={destinationId} backfills={backfills.data ?? []} canEdit={canEdit} />
      {backfills.isError ? <ErrorNote error={backfills.error} /> : null}
    </Card>
  );
}

function BackfillList({ destinationId, backfills, canEdit }: { destinationId: string; backfills: BackfillDto[]; canEdit: boolean }) {
  const cancel = useCancelBackfillMutation(destinationId);
  if (backfills.length === 0) return null;
  return (
    <>
      <ul className="mt-5 divide-y divide-slate-100" aria-label="Backfills">
        {backfills.map((b) => {
          const pct = b.total > 0 ? Math.min(100, Math.round((b.done / b.total) * 100)) : 100;
          return (
            <li key={b.id} className="py-3 text-sm" aria-label={`Backfill started ${new Date(b.createdAt).toLocaleString()}`}>
              <div className="flex flex-wrap items-center gap-2">
                <Badge tone={STATE_TONE[b.state]}>{b.state}</Badge>
                <span className="text-slate-700" data-testid="backfill-progress">
                  {b.done} / {b.total} sent
                </span>
                {b.ratePerSecond !== null ? <span className="text-xs text-slate-500">{b.ratePerSecond}/s</span> : null}
                {b.etaSeconds !== null ? <span className="text-xs text-slate-500">about {duration(b.etaSeconds)} left</span> : null}
                <Link href={`/log?backfillId=${b.id}`} className="text-xs text-indigo-700 hover:underline">
                  See its attempts
                </Link>
                {canEdit && b.state === "running" ? (
                  <Button variant="secondary" className="ml-auto text-xs" onClick={() => cancel.mutate(b.id)} disabled={cancel.isPending}>
                    Cancel
                  </Button>
                ) : null}
              </div>
              <div
                className="mt-2 h-1.5 w-full overflow-hidden rounded bg-slate-100"
                role="progressbar"
                aria-label="Backfill progress"
                aria-valuemin={0}
                aria-valuemax={b.total}
                aria-valuenow={b.done}
              >
                <div className="h-full bg-indigo-600" style={{ width: `${pct}%` }} />
              </div>
              <p className="mt-1 text-xs text-slate-500">
                Calls received {new Date(b.from).toLocaleString()} – {new Date(b.to).toLocaleString()}
                {b.resend ? ", resending" : ""}; started by {b.startedBy}
              </p>
            </li>
          );
        })}
      </ul>
      <ErrorNote error={cancel.error} />
    </>
  );
}
