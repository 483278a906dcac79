"use client";

import { Button } from "@/components/ui/button";
import { Badge, ErrorNote } from "@/components/ui/card";
import type { TrackingPlanRule } from "@/lib/tracking-plans/contract";
import { usePlanPreviewMutation } from "./hooks";

/**
 * "Test against recent calls": the plan as typed, on the newest calls of the sources it is to be
 * connected to, judged as ingest would (docs/tracking-plans.md#preview). Nothing is saved.
 */
export function PlanPreview({
  rules,
  violations,
  unplanned,
  sourceIds,
}: {
  rules: TrackingPlanRule[];
  violations: "flag" | "block";
  unplanned: "allow" | "flag" | "block";
  sourceIds: string[];
}) {
  const preview = usePlanPreviewMutation();
  const r = preview.data;
  return (
    <section aria-labelledby="preview-heading" className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="preview-heading" className="text-base font-semibold text-slate-900">
          Test against recent calls
        </h2>
        <Button
          variant="secondary"
          disabled={sourceIds.length === 0 || preview.isPending}
          onClick={() => preview.mutate({ rules, violations, unplanned, sourceIds })}
        >
          {preview.isPending ? "Testing…" : "Test the plan as typed"}
        </Button>
        {sourceIds.length === 0 ? <span className="text-xs text-slate-500">Connect a source first.</span> : null}
      </div>
      <ErrorNote error={preview.error} />
      {r ? (
        <div role="status" className="space-y-2 text-sm text-slate-700">
          <p>
            Of the {r.considered.toLocaleString()} newest calls of the connected sources: {r.conforming.toLocaleString()} pass,{" "}
            {r.flagged.toLocaleString()} would be flagged, {r.blocked.toLocaleString()} blocked.
          </p>
          {r.examples.length > 0 ? (
            <ul aria-label="Calls the plan would flag or block" className="space-y-1">
              {r.examples.map((e) => (
                <li key={e.messageId} className="[overflow-wrap:anywhere]">
                  <Badge tone={e.blocked ? "red" : "amber"}>{e.blocked ? "Blocked" : "Flagged"}</Badge>{" "}
                  <span className="font-mono text-xs">{e.type}</span> <bdi>{e.event ?? ""}</bdi> ·{" "}
                  {e.violations.map((v) => `${v.path} ${v.rule}: ${v.message}`).join("; ")}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
