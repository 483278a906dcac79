"use client";

import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SourceDto } from "@/lib/sources/schemas";
import { ApiError, api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { fetchSources, sourceKeys } from "./queries";

export function SourcesList() {
  const qc = useQueryClient();
  const sources = useQuery({ queryKey: sourceKeys.list(), queryFn: ({ signal }) => fetchSources(signal) });
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => api<SourceDto>("/api/sources", { method: "POST", body: { name } }),
    onSuccess: () => {
      setName("");
      setCreating(false);
      return qc.invalidateQueries({ queryKey: sourceKeys.list() });
    },
  });
  const nameError = create.error instanceof ApiError ? create.error.fields?.name?.[0] : undefined;

  return (
    <>
      <PageHeader
        title="Sources"
        description="A source is where your calls come from. Point any Segment-compatible client at this server with the source's write key."
        actions={!creating ? <Button onClick={() => setCreating(true)}>New source</Button> : null}
      />
      {creating ? (
        <Card className="mb-6 p-4">
          <form
            className="flex items-end gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate();
            }}
          >
            <div className="flex-1">
              <Field label="Source name" htmlFor="source-name" error={nameError}>
                <Input id="source-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Backend (Go)" autoFocus aria-invalid={!!nameError} />
              </Field>
            </div>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Creating…" : "Create source"}
            </Button>
            <Button variant="ghost" onClick={() => setCreating(false)}>
              Cancel
            </Button>
          </form>
          {!nameError ? <div className="mt-2"><ErrorNote error={create.error} /></div> : null}
        </Card>
      ) : null}
      {sources.isPending ? (
        <Spinner />
      ) : sources.isError ? (
        <ErrorNote error={sources.error} />
      ) : sources.data.length === 0 ? (
        <EmptyState title="No sources yet" action={<Button onClick={() => setCreating(true)}>Create your first source</Button>}>
          Create a source to get a write key, then send calls to <code>/v1/track</code> or <code>/v1/batch</code>.
        </EmptyState>
      ) : (
        <Card>
          <ul className="divide-y divide-slate-100">
            {sources.data.map((s) => (
              <li key={s.id}>
                <Link href={`/sources/${s.id}`} className="flex items-center justify-between px-4 py-3 hover:bg-slate-50">
                  <div>
                    <div className="font-medium text-slate-900">{s.name}</div>
                    <div className="font-mono text-xs text-slate-500">{s.writeKey.slice(0, 6)}••••••••</div>
                  </div>
                  <Badge tone={s.enabled ? "green" : "slate"}>{s.enabled ? "Enabled" : "Disabled"}</Badge>
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </>
  );
}
