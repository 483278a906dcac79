"use client";

import { useState } from "react";
import { useCan } from "@/components/layout/role";
import { Button } from "@/components/ui/button";
import { Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { TimeAgo, selectClass } from "@/components/ui/format";
import type { AuditEventDto } from "@/lib/audit/contract";
import { type AuditFilters, useAuditLog } from "./hooks";
import { ResourceName } from "./resource-name";

const RESOURCES = [
  "source",
  "destination",
  "audience",
  "capture_bin",
  "token",
  "member",
  "invitation",
  "deletion",
  "replay",
  "session",
  "workspace",
];

const show = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

/** One change, field by field: before → after (secrets only as "changed"). */
function Changes({ changes }: { changes: AuditEventDto["changes"] }) {
  if (!changes || Object.keys(changes).length === 0) return null;
  return (
    <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
      {Object.entries(changes).map(([field, c]) => (
        <div key={field} className="contents" data-testid={`change-${field}`}>
          <dt className="font-medium text-slate-600">{field}</dt>
          <dd className="min-w-0 font-mono text-slate-700 [overflow-wrap:anywhere]">
            {show(c.before)} → {show(c.after)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The audit log (docs/management-api.md#audit-log): filters by actor, resource, action and time; newest first, page by page. */
export function AuditLog() {
  const canRead = useCan("admin");
  const [draft, setDraft] = useState<AuditFilters>({});
  const [filters, setFilters] = useState<AuditFilters>({});
  const log = useAuditLog(filters);
  if (!canRead) {
    return (
      <>
        <PageHeader title="Audit log" />
        <EmptyState title="Admins and owners only">Ask an owner of this workspace if you need to see who changed what.</EmptyState>
      </>
    );
  }
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [k]: e.target.value || undefined }));
  const toIso = (v?: string) => (v ? new Date(v).toISOString() : undefined);
  const events = log.data?.pages.flatMap((p) => p.events) ?? [];

  return (
    <>
      <PageHeader title="Audit log" description="Every change to this workspace: who made it, when, from which address, field by field." />
      <Card className="mb-6 p-5">
        <form
          className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            setFilters({ ...draft, from: toIso(draft.from), to: toIso(draft.to) });
          }}
        >
          <Field label="Who (email or token)" htmlFor="audit-actor">
            <Input id="audit-actor" value={draft.actor ?? ""} onChange={set("actor")} />
          </Field>
          <Field label="Resource" htmlFor="audit-resource">
            <select id="audit-resource" className={`${selectClass} w-full`} value={draft.resource ?? ""} onChange={set("resource")}>
              <option value="">any</option>
              {RESOURCES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Action" htmlFor="audit-action" hint="e.g. destination.update, or destination.">
            <Input id="audit-action" value={draft.action ?? ""} onChange={set("action")} />
          </Field>
          <Field label="From" htmlFor="audit-from">
            <Input id="audit-from" type="datetime-local" value={draft.from ?? ""} onChange={set("from")} />
          </Field>
          <Field label="To" htmlFor="audit-to">
            <Input id="audit-to" type="datetime-local" value={draft.to ?? ""} onChange={set("to")} />
          </Field>
          <div className="flex gap-2 sm:col-span-2 lg:col-span-5">
            <Button type="submit">Filter</Button>
            <Button
              variant="ghost"
              onClick={() => {
                setDraft({});
                setFilters({});
              }}
            >
              Clear
            </Button>
          </div>
        </form>
      </Card>
      {log.isPending ? (
        <Spinner />
      ) : log.isError ? (
        <ErrorNote error={log.error} />
      ) : events.length === 0 ? (
        <EmptyState title="Nothing recorded">No change matches these filters.</EmptyState>
      ) : (
        <Card>
          <ul className="divide-y divide-slate-100" aria-label="Audit events">
            {events.map((e) => (
              <li key={e.id} className="px-4 py-3 text-sm" data-testid="audit-event">
                <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
                  <span className="font-mono font-medium text-slate-900">{e.action}</span>
                  <ResourceName event={e} />
                  <span className="min-w-0 text-slate-600 [overflow-wrap:anywhere]">
                    by <bdi>{e.actor.label}</bdi>
                    {e.actor.type === "token" ? " (API token)" : e.actor.type === "operator" ? " (operator)" : ""}
                  </span>
                  <span className="text-slate-500">{e.address ?? ""}</span>
                  <span className="text-slate-500">
                    <TimeAgo iso={e.at} />
                  </span>
                </div>
                <Changes changes={e.changes} />
              </li>
            ))}
          </ul>
          {log.hasNextPage ? (
            <div className="border-t border-slate-100 p-3 text-center">
              <Button variant="secondary" onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                Older changes
              </Button>
            </div>
          ) : null}
        </Card>
      )}
    </>
  );
}
