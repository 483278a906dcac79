"use client";

import { useState } from "react";
import { Card, ErrorNote, Spinner } from "@/components/ui/card";
import { ChoiceGroup } from "@/components/ui/choice-group";
import type { PlanViolationsDto } from "@/lib/tracking-plans/contract";
import { usePlanViolations } from "./hooks";

const WINDOWS = { "24": { hours: 24, step: 1, unit: "hour" }, "168": { hours: 168, step: 24, unit: "day" } } as const;

/** Calls per step (hour or day) of the window, oldest first, for a row's bars. */
function buckets(group: PlanViolationsDto["groups"][number], since: string, hours: number, step: number): { at: number; n: number }[] {
  const start = Date.parse(since);
  const out = Array.from({ length: Math.ceil(hours / step) }, (_, i) => ({ at: start + i * step * 3_600_000, n: 0 }));
  for (const h of group.byHour) {
    const i = Math.min(out.length - 1, Math.max(0, Math.floor((Date.parse(h.hour) - start) / (step * 3_600_000))));
    out[i].n += h.calls;
  }
  return out;
}

/** A plan's violations per event and rule over the last day or week (docs/tracking-plans.md#violations). */
export function ViolationsPanel({ planId }: { planId: string }) {
  const [windowKey, setWindowKey] = useState<keyof typeof WINDOWS>("24");
  const w = WINDOWS[windowKey];
  const view = usePlanViolations(planId, w.hours);
  return (
    <Card className="mb-6 p-4">
      <section aria-labelledby="violations-heading" className="space-y-3">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="violations-heading" className="text-base font-semibold text-slate-900">
            Violations
          </h2>
          <ChoiceGroup
            label="Period"
            value={windowKey}
            onChange={setWindowKey}
            options={[
              { value: "24", label: "Last 24 hours" },
              { value: "168", label: "Last 7 days" },
            ]}
          />
        </div>
        {view.isPending ? <Spinner /> : null}
        <ErrorNote error={view.error} />
        {view.data && view.data.groups.length === 0 ? (
          <p className="text-sm text-slate-500">No violations in this period from the plan&apos;s sources.</p>
        ) : null}
        {view.data && view.data.groups.length > 0 ? (
          <div className="overflow-x-auto">
            <table className="w-full text-sm" aria-label="Violations by event and rule">
              <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th className="py-1 pr-3 font-medium">Event</th>
                  <th className="py-1 pr-3 font-medium">Rule</th>
                  <th className="py-1 pr-3 text-right font-medium">Calls</th>
                  <th className="py-1 pr-3 text-right font-medium">Blocked</th>
                  <th className="hidden py-1 font-medium sm:table-cell">Per {w.unit}</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {view.data.groups.map((g) => {
                  const bars = buckets(g, view.data.since, w.hours, w.step);
                  const max = Math.max(1, ...bars.map((b) => b.n));
                  return (
                    <tr key={`${g.event}\u0000${g.rule}`}>
                      <td className="max-w-48 truncate py-1.5 pr-3">
                        <bdi>{g.event || "—"}</bdi>
                      </td>
                      <td className="py-1.5 pr-3 font-mono text-xs">{g.rule}</td>
                      <td className="py-1.5 pr-3 text-right tabular-nums">{g.calls.toLocaleString()}</td>
                      <td className="py-1.5 pr-3 text-right tabular-nums">{g.blocked.toLocaleString()}</td>
                      <td className="hidden py-1.5 sm:table-cell">
                        <div
                          className="flex h-5 items-end gap-px"
                          role="img"
                          aria-label={`Calls per ${w.unit}, oldest first: ${bars.map((b) => b.n).join(", ")}`}
                        >
                          {bars.map(({ at, n }) => (
                            <span
                              key={at}
                              className="w-1.5 bg-amber-500"
                              style={{ height: `${n === 0 ? 0 : Math.max(10, (n / max) * 100)}%` }}
                            />
                          ))}
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </Card>
  );
}
