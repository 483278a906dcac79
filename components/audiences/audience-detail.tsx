"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import type { AudienceSyncDto } from "@/lib/audiences/contract";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { DeleteButton } from "@/components/ui/delete-button";
import { ScrollBox } from "@/components/ui/scroll-box";
import { plural } from "@/components/ui/format";
import { describeCondition, syncDelta } from "./describe";
import { isActive, useAudience, useAudienceSyncs, useDeleteAudienceMutation, useSyncAudienceMutation } from "./hooks";
import { MembersPanel } from "./members-panel";
import { SyncStatusBadge, SyncProgress, formatDuration, formatWhen } from "./sync-status";
import { useCan } from "@/components/layout/role";

const DELTA_TONE = { up: "text-emerald-700", down: "text-red-700", none: "text-slate-500" } as const;

function Delta({ n, direction }: { n: number; direction: "entered" | "exited" }) {
  const d = syncDelta(n, direction);
  return <span className={`tabular-nums ${DELTA_TONE[d.tone]}`}>{d.text}</span>;
}

function SyncHistory({ id }: { id: string }) {
  const syncs = useAudienceSyncs(id);
  return (
    <Card>
      <h2 className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-900">Sync history</h2>
      {syncs.isPending ? (
        <div className="px-4">
          <Spinner />
        </div>
      ) : syncs.isError ? (
        <div className="p-4">
          <ErrorNote error={syncs.error} />
        </div>
      ) : syncs.data.length === 0 ? (
        <p className="px-4 py-6 text-sm text-slate-500">No syncs yet.</p>
      ) : (
        <ScrollBox label="Sync history, scrollable">
          <table className="w-full text-sm" aria-label="Sync history">
            <thead>
              <tr className="text-left text-xs uppercase tracking-wide text-slate-500">
                <th className="px-4 py-2 font-medium">Started</th>
                <th className="px-4 py-2 font-medium">Status</th>
                <th className="px-4 py-2 font-medium">Entered</th>
                <th className="px-4 py-2 font-medium">Exited</th>
                <th className="px-4 py-2 font-medium">Identifies</th>
                <th className="px-4 py-2 font-medium">Duration</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {syncs.data.map((s: AudienceSyncDto) => (
                <tr key={s.id} data-testid="sync-row">
                  <td className="px-4 py-2 text-xs text-slate-600">
                    {formatWhen(s.startedAt)}
                    <div className="text-slate-500">
                      {s.trigger}
                      {s.initial ? " · first sync" : ""}
                    </div>
                  </td>
                  <td className="px-4 py-2">
                    <SyncStatusBadge status={s.status} />
                    {s.error ? <div className="mt-1 max-w-xs text-xs text-red-600">{s.error}</div> : null}
                  </td>
                  <td className="px-4 py-2">
                    <Delta n={s.entered} direction="entered" />
                  </td>
                  <td className="px-4 py-2">
                    <Delta n={s.exited} direction="exited" />
                  </td>
                  <td className="px-4 py-2">
                    <SyncProgress sync={s} />
                  </td>
                  <td className="px-4 py-2 text-xs tabular-nums text-slate-600">{formatDuration(s.durationMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </Card>
  );
}

export function AudienceDetail({ id }: { id: string }) {
  const router = useRouter();
  const audience = useAudience(id, { live: true });
  const syncNow = useSyncAudienceMutation();
  const canEdit = useCan("admin");
  const remove = useDeleteAudienceMutation();

  if (audience.isPending) return <Spinner />;
  if (audience.isError) return <ErrorNote error={audience.error} />;
  const a = audience.data;
  const active = isActive(a.lastSync);

  return (
    <>
      <PageHeader
        title={a.name}
        description={
          <>
            Identify trait <code className="font-mono">{a.propertyName}</code> ·{" "}
            {a.scheduleMinutes ? `syncs every ${a.scheduleMinutes} minutes` : "syncs on demand"}
          </>
        }
        actions={
          canEdit ? (
            <>
              <Button onClick={() => syncNow.mutate(id)} disabled={syncNow.isPending || active}>
                {active ? "Syncing…" : "Sync now"}
              </Button>
              <Link
                href={`/audiences/${id}/edit`}
                className="inline-flex items-center rounded-md bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50"
              >
                Edit
              </Link>
              <DeleteButton
                title={`Delete audience "${a.name}"?`}
                confirmLabel="Delete audience"
                busy={remove.isPending}
                error={remove.error}
                onConfirm={() => remove.mutate(id, { onSuccess: () => router.push("/audiences") })}
              >
                Destinations keep the trait values already sent.
              </DeleteButton>
            </>
          ) : null
        }
      />
      <ErrorNote error={syncNow.error} />
      <div className="mb-6 grid gap-4 sm:grid-cols-3">
        <Card className="p-4">
          <div className="text-xs uppercase tracking-wide text-slate-500">Members</div>
          <div className="mt-1 text-2xl font-semibold tabular-nums" data-testid="audience-size">
            {a.size.toLocaleString("en-US")}
          </div>
          <div className="text-xs text-slate-500">{a.lastSyncedAt ? `as of ${formatWhen(a.lastSyncedAt)}` : "not synced yet"}</div>
        </Card>
        <Card className="p-4">
          <div className="text-xs uppercase tracking-wide text-slate-500">Destinations</div>
          <div className="mt-1 text-2xl font-semibold">{a.destinationIds.length}</div>
          <div className="text-xs text-slate-500">{plural(a.sourceIds.length, "source")}</div>
        </Card>
        <Card className="p-4">
          <div className="text-xs uppercase tracking-wide text-slate-500">Last sync</div>
          <div className="mt-1">{a.lastSync ? <SyncStatusBadge status={a.lastSync.status} /> : <Badge>never</Badge>}</div>
          {a.lastSync ? (
            <div className="mt-1">
              <SyncProgress sync={a.lastSync} />
            </div>
          ) : null}
        </Card>
      </div>
      <Card className="mb-6 p-4">
        <div className="text-xs uppercase tracking-wide text-slate-500">Condition</div>
        <p className="mt-1 font-mono text-sm text-slate-800">{describeCondition(a.condition)}</p>
      </Card>
      <div className="space-y-6">
        <SyncHistory id={id} />
        <MembersPanel id={id} />
      </div>
    </>
  );
}
