"use client";

import Link from "next/link";
import { Badge, EmptyState, PageHeader } from "@/components/ui/card";
import { ListTable } from "@/components/ui/list-table";
import { useAudiences } from "./hooks";
import { SyncStatusBadge, formatWhen } from "./sync-status";
import { useCan } from "@/components/layout/role";

const newButton = (
  <Link
    href="/audiences/new"
    className="inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-on-accent shadow-sm hover:bg-indigo-500"
  >
    New audience
  </Link>
);

export function AudiencesList() {
  const audiences = useAudiences();
  const canEdit = useCan("admin");
  return (
    <>
      <PageHeader
        title="Audiences"
        description="Users who match a condition, kept in sync with your webhooks: each member gets an identify call with a true trait, and false when they leave."
        actions={canEdit ? newButton : null}
      />
      <ListTable
        query={audiences}
        rowKey={(a) => a.id}
        empty={
          <EmptyState title="No audiences yet" action={newButton}>
            Build one from traits (plan equals pro) and events (performed Order Completed 3 times in 30 days), and connect it to a
            destination.
          </EmptyState>
        }
        columns={[
          {
            header: "Name",
            cell: (a) => (
              <>
                <Link href={`/audiences/${a.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
                  <bdi>{a.name}</bdi>
                </Link>
                <div className="font-mono text-xs text-slate-500">{a.propertyName}</div>
              </>
            ),
          },
          {
            header: "Members",
            className: "tabular-nums",
            cell: (a) => <span data-testid="audience-size">{a.size.toLocaleString("en-US")}</span>,
          },
          {
            header: "Last sync",
            cell: (a) =>
              a.lastSync ? (
                <div className="flex items-center gap-2">
                  <SyncStatusBadge status={a.lastSync.status} />
                  <span className="text-xs text-slate-500">{formatWhen(a.lastSync.finishedAt ?? a.lastSync.startedAt)}</span>
                </div>
              ) : (
                <span className="text-xs text-slate-500">never</span>
              ),
          },
          {
            header: "Schedule",
            className: "text-xs text-slate-600",
            cell: (a) => (a.scheduleMinutes ? `every ${a.scheduleMinutes} min` : <Badge>on demand</Badge>),
          },
        ]}
      />
    </>
  );
}
