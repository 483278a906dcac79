"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { NewDeletionForm } from "./new-deletion-form";
import { LIVE_MS, deletionKeys, fetchDeletions, isActive } from "./queries";
import { StatusBadge } from "./status-badge";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function DeletionsList() {
  const [creating, setCreating] = useState(false);
  const deletions = useQuery({
    queryKey: deletionKeys.list(),
    queryFn: ({ signal }) => fetchDeletions(signal),
    refetchInterval: (q) => (q.state.data?.some((d) => isActive(d.status)) ? LIVE_MS : false),
  });

  return (
    <>
      <PageHeader
        title="Deletions"
        description="Erase users: their stored events, profile and audience memberships. Each source that held data for a user sends a delete notification to its enabled Webhooks destinations."
        actions={!creating ? <Button onClick={() => setCreating(true)}>New deletion request</Button> : null}
      />
      {creating ? <NewDeletionForm onDone={() => setCreating(false)} /> : null}
      {deletions.isPending ? (
        <Spinner />
      ) : deletions.isError ? (
        <ErrorNote error={deletions.error} />
      ) : deletions.data.length === 0 ? (
        <EmptyState title="No deletion requests yet" action={!creating ? <Button onClick={() => setCreating(true)}>Create a deletion request</Button> : null}>
          Paste the userIds a person asked you to forget; Eventrail erases them and notifies your webhooks.
        </EmptyState>
      ) : (
        <Card>
          <ul className="divide-y divide-slate-100">
            {deletions.data.map((d) => (
              <li key={d.id}>
                <Link href={`/deletions/${d.id}`} className="flex items-center justify-between gap-4 px-4 py-3 hover:bg-slate-50">
                  <div className="min-w-0">
                    <div className="truncate font-mono text-sm text-slate-900">
                      {d.userIds.slice(0, 3).join(", ")}
                      {d.userIds.length > 3 ? ` and ${d.userIds.length - 3} more` : ""}
                    </div>
                    <div className="text-xs text-slate-500">
                      {new Date(d.createdAt).toLocaleString()} · {plural(d.userIds.length, "user")}
                      {d.status === "completed" ? ` · ${plural(d.affectedSourceCount, "source")} affected · ${plural(d.notificationCount, "notification")}` : ""}
                    </div>
                  </div>
                  <StatusBadge status={d.status} />
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </>
  );
}
