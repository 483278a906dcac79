"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, PageHeader } from "@/components/ui/card";
import { Field, inputClass } from "@/components/ui/field";
import { plural } from "@/components/ui/format";
import { LinkList } from "@/components/ui/list-table";
import { useCan } from "@/components/layout/role";
import { useImportTrackingPlanMutation, useTrackingPlans } from "./hooks";

/** The workspace's tracking plans (docs/tracking-plans.md), and an import of a plan in Segment's shape. */
export function TrackingPlansList() {
  const canEdit = useCan("admin");
  const plans = useTrackingPlans();
  const [importing, setImporting] = useState(false);
  const newButton = (
    <Link
      href="/tracking-plans/new"
      className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-on-accent hover:bg-indigo-500"
    >
      New tracking plan
    </Link>
  );
  return (
    <>
      <PageHeader
        title="Tracking plans"
        description="A JSON Schema per event: calls that break it are flagged (delivered, violations recorded) or blocked (stored, not delivered). Clients always get 200."
        actions={
          canEdit ? (
            <>
              {!importing ? (
                <Button variant="secondary" onClick={() => setImporting(true)}>
                  Import from Segment
                </Button>
              ) : null}
              {newButton}
            </>
          ) : null
        }
      />
      {importing ? <ImportForm onDone={() => setImporting(false)} /> : null}
      <LinkList
        query={plans}
        itemKey={(p) => p.id}
        href={(p) => `/tracking-plans/${p.id}`}
        empty={
          <EmptyState title="No tracking plans yet" action={canEdit ? newButton : null}>
            Write the events you expect and connect the plan to sources; each call is checked as it arrives.
          </EmptyState>
        }
      >
        {(p) => (
          <>
            <div className="min-w-0">
              <div className="truncate text-sm font-medium text-slate-900">
                <bdi>{p.name}</bdi>
              </div>
              <div className="text-xs text-slate-500">
                {plural(p.rules.length, "rule")} · {plural(p.sourceIds.length, "source")} · version {p.version}
              </div>
            </div>
            <div className="flex shrink-0 gap-1">
              <Badge tone={p.violations === "block" ? "red" : "amber"}>violations: {p.violations}</Badge>
              <Badge tone={p.unplanned === "block" ? "red" : p.unplanned === "flag" ? "amber" : "slate"}>unplanned: {p.unplanned}</Badge>
            </div>
          </>
        )}
      </LinkList>
    </>
  );
}

function ImportForm({ onDone }: { onDone: () => void }) {
  const router = useRouter();
  const [text, setText] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);
  const importPlan = useImportTrackingPlanMutation();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    let plan: unknown;
    try {
      plan = JSON.parse(text);
    } catch (err) {
      setParseError(`Not JSON: ${(err as Error).message}`);
      return;
    }
    setParseError(null);
    importPlan.mutate(plan as Record<string, unknown>, { onSuccess: (p) => router.push(`/tracking-plans/${p.id}`) });
  };
  return (
    <Card className="mb-6 p-4">
      <form onSubmit={submit} className="space-y-3">
        <Field
          label="Segment tracking plan (JSON)"
          htmlFor="import-plan"
          error={parseError ?? undefined}
          hint="The Config API's export ({display_name, rules: {events, identify, group}}) or the Public API's rules list."
        >
          <textarea
            id="import-plan"
            rows={8}
            value={text}
            onChange={(e) => setText(e.target.value)}
            className={`${inputClass} font-mono text-xs`}
          />
        </Field>
        <ErrorNote error={importPlan.error} />
        <div className="flex gap-2">
          <Button type="submit" disabled={importPlan.isPending || text.trim() === ""}>
            {importPlan.isPending ? "Importing…" : "Import"}
          </Button>
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}
