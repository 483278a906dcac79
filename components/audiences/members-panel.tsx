"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote, Spinner } from "@/components/ui/card";
import { Input } from "@/components/ui/field";
import { formatWhen } from "./sync-status";
import { useAudienceMembers } from "./hooks";

/** Members as of the last sync, searchable by userId or email, 50 at a time. */
export function MembersPanel({ id }: { id: string }) {
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), 300);
    return () => clearTimeout(t);
  }, [search]);
  const members = useAudienceMembers(id, q);
  const rows = members.data?.pages.flatMap((p) => p.members) ?? [];
  return (
    <Card>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 border-b border-slate-100 px-4 py-3">
        <h2 className="text-sm font-semibold text-slate-900">Members</h2>
        <Input
          aria-label="Search members"
          placeholder="Search by user id or email"
          className="max-w-xs"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
      </div>
      {members.isPending ? (
        <div className="px-4">
          <Spinner />
        </div>
      ) : members.isError ? (
        <div className="p-4">
          <ErrorNote error={members.error} />
        </div>
      ) : rows.length === 0 ? (
        <p className="px-4 py-6 text-sm text-slate-500">{q ? `No member matches “${q}”.` : "No members yet. They appear after a sync."}</p>
      ) : (
        <>
          <ul className="divide-y divide-slate-100" aria-label="Members">
            {rows.map((m) => (
              <li key={m.userId} className="flex items-center justify-between gap-4 px-4 py-2 text-sm">
                <div className="min-w-0">
                  <bdi className="block truncate font-mono text-slate-900">{m.userId}</bdi>
                  {typeof m.traits.email === "string" ? <div className="truncate text-xs text-slate-500">{m.traits.email}</div> : null}
                </div>
                <div className="shrink-0 text-xs text-slate-500">since {formatWhen(m.since)}</div>
              </li>
            ))}
          </ul>
          {members.hasNextPage ? (
            <div className="border-t border-slate-100 px-4 py-3">
              <Button variant="secondary" onClick={() => members.fetchNextPage()} disabled={members.isFetchingNextPage}>
                {members.isFetchingNextPage ? "Loading…" : "Load more"}
              </Button>
            </div>
          ) : null}
        </>
      )}
    </Card>
  );
}
