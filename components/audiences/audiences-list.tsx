"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { SyncStatusBadge, formatWhen } from "./sync-status";
import { audienceKeys, fetchAudiences, isActive } from "./queries";

const newButton = (
  <Link href="/audiences/new" className="inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-indigo-500">
    New audience
  </Link>
);

export function AudiencesList() {
  const audiences = useQuery({
    queryKey: audienceKeys.list(),
    queryFn: ({ signal }) => fetchAudiences(signal),
    // Sizes and last syncs move while a sync runs.
    refetchInterval: (q) => (q.state.data?.some((a) => isActive(a.lastSync)) ? 2_000 : false),
  });
  return (
    <>
      <PageHeader
        title="Audiences"
        description="Users who match a condition, kept in sync with your webhooks: each member gets an identify call with a true trait, and false when they leave."
        actions={newButton}
      />
      {audiences.isPending ? (
        <Spinner />
      ) : audiences.isError ? (
        <ErrorNote error={audiences.error} />
      ) : audiences.data.length === 0 ? (
        <EmptyState title="No audiences yet" action={newButton}>
          Build one from traits (plan equals pro) and events (performed Order Completed 3 times in 30 days), and connect it to a destination.
        </EmptyState>
      ) : (
        <Card>
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
                <th className="px-4 py-2 font-medium">Name</th>
                <th className="px-4 py-2 font-medium">Members</th>
                <th className="px-4 py-2 font-medium">Last sync</th>
                <th className="px-4 py-2 font-medium">Schedule</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {audiences.data.map((a) => (
                <tr key={a.id} className="hover:bg-slate-50">
                  <td className="px-4 py-3">
                    <Link href={`/audiences/${a.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
                      {a.name}
                    </Link>
                    <div className="font-mono text-xs text-slate-500">{a.propertyName}</div>
                  </td>
                  <td className="px-4 py-3 tabular-nums" data-testid="audience-size">
                    {a.size.toLocaleString("en-US")}
                  </td>
                  <td className="px-4 py-3">
                    {a.lastSync ? (
                      <div className="flex items-center gap-2">
                        <SyncStatusBadge status={a.lastSync.status} />
                        <span className="text-xs text-slate-500">{formatWhen(a.lastSync.finishedAt ?? a.lastSync.startedAt)}</span>
                      </div>
                    ) : (
                      <span className="text-xs text-slate-400">never</span>
                    )}
                  </td>
                  <td className="px-4 py-3 text-xs text-slate-600">
                    {a.scheduleMinutes ? `every ${a.scheduleMinutes} min` : <Badge>on demand</Badge>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </>
  );
}
