"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { EmptyState, PageHeader } from "@/components/ui/card";
import { plural } from "@/components/ui/format";
import { LinkList } from "@/components/ui/list-table";
import { useDeletions } from "./hooks";
import { NewDeletionForm } from "./new-deletion-form";
import { StatusBadge } from "./status-badge";
import { useCan } from "@/components/layout/role";

export function DeletionsList() {
  const canEdit = useCan("admin");
  const [creating, setCreating] = useState(false);
  const deletions = useDeletions();

  return (
    <>
      <PageHeader
        title="Deletions"
        description="Erase users: their stored events, profile and audience memberships. Each source that held data for a user sends a delete notification to its enabled Webhooks destinations."
        actions={canEdit && !creating ? <Button onClick={() => setCreating(true)}>New deletion request</Button> : null}
      />
      {creating ? <NewDeletionForm onDone={() => setCreating(false)} /> : null}
      <LinkList
        query={deletions}
        itemKey={(d) => d.id}
        href={(d) => `/deletions/${d.id}`}
        empty={
          <EmptyState
            title="No deletion requests yet"
            action={canEdit && !creating ? <Button onClick={() => setCreating(true)}>Create a deletion request</Button> : null}
          >
            Paste the userIds a person asked you to forget; Eventrail erases them and notifies your webhooks.
          </EmptyState>
        }
      >
        {(d) => (
          <>
            <div className="min-w-0">
              <div className="truncate font-mono text-sm text-slate-900">
                {d.userIds.slice(0, 3).map((u, i) => (
                  <span key={u}>
                    {i > 0 ? ", " : null}
                    <bdi>{u}</bdi>
                  </span>
                ))}
                {d.userIds.length > 3 ? ` and ${d.userIds.length - 3} more` : ""}
              </div>
              <div className="text-xs text-slate-500">
                {new Date(d.createdAt).toLocaleString()} · {plural(d.userIds.length, "user")}
                {d.status === "completed"
                  ? ` · ${plural(d.affectedSourceCount, "source")} affected · ${plural(d.notificationCount, "notification")}`
                  : ""}
              </div>
            </div>
            <StatusBadge status={d.status} />
          </>
        )}
      </LinkList>
    </>
  );
}
