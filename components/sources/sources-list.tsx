"use client";

import { focusWhenPresent } from "@/components/ui/focus";
import { useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, PageHeader } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { LinkList } from "@/components/ui/list-table";
import { useCreateSourceMutation, useSources } from "./hooks";
import { SourceHealthBadge } from "./source-health";
import { useCan } from "@/components/layout/role";

export function SourcesList() {
  const sources = useSources();
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const create = useCreateSourceMutation();
  const canEdit = useCan("admin");
  const nameError = create.error instanceof ApiError ? create.error.fields?.name?.[0] : undefined;

  return (
    <>
      <PageHeader
        title="Sources"
        description="A source is where your calls come from. Point any Segment-compatible client at this server with the source's write key."
        actions={canEdit && !creating ? <Button onClick={() => setCreating(true)}>New source</Button> : null}
      />
      {creating ? (
        <Card className="mb-6 p-4">
          <form
            className="flex flex-wrap items-end gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate(name, {
                onSuccess: (created) => {
                  setName("");
                  setCreating(false);
                  // Focus goes to the new source in the list (the form it was in is gone).
                  focusWhenPresent(() => document.querySelector<HTMLElement>(`#main a[href="/sources/${created.id}"]`));
                },
              });
            }}
          >
            <div className="min-w-48 flex-1">
              <Field label="Source name" htmlFor="source-name" error={nameError}>
                <Input id="source-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Backend (Go)" autoFocus />
              </Field>
            </div>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Creating…" : "Create source"}
            </Button>
            <Button variant="ghost" onClick={() => setCreating(false)}>
              Cancel
            </Button>
          </form>
          {!nameError ? (
            <div className="mt-2">
              <ErrorNote error={create.error} />
            </div>
          ) : null}
        </Card>
      ) : null}
      <LinkList
        query={sources}
        itemKey={(s) => s.id}
        href={(s) => `/sources/${s.id}`}
        empty={
          <EmptyState
            title="No sources yet"
            action={canEdit ? <Button onClick={() => setCreating(true)}>Create your first source</Button> : null}
          >
            Create a source to get a write key, then send calls to <code>/v1/track</code> or <code>/v1/batch</code>.
          </EmptyState>
        }
      >
        {(s) => (
          <>
            <div>
              <div className="font-medium text-slate-900 [overflow-wrap:anywhere]">
                <bdi>{s.name}</bdi>
              </div>
              <div className="font-mono text-xs text-slate-500">
                {s.writeKey ? `${s.writeKey.slice(0, 6)}••••••••` : "write key hidden"}
              </div>
            </div>
            <div className="flex items-center gap-2">
              {s.enabled ? <SourceHealthBadge health={s.health} /> : null}
              <Badge tone={s.enabled ? "green" : "slate"}>{s.enabled ? "Enabled" : "Disabled"}</Badge>
            </div>
          </>
        )}
      </LinkList>
    </>
  );
}
