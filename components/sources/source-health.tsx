"use client";

import { Badge, Card } from "@/components/ui/card";
import type { SourceHealthDto } from "@/lib/sources/contract";

const STATE = {
  healthy: { tone: "green", label: "Healthy" },
  rejecting: { tone: "red", label: "Rejecting" },
  idle: { tone: "slate", label: "Idle" },
  disabled: { tone: "slate", label: "Disabled" },
} as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The source's state; "Rejecting" when a meaningful share of its recent calls was rejected. */
export function SourceHealthBadge({ health }: { health: SourceHealthDto }) {
  const s = STATE[health.state];
  return (
    <span title={summary(health)}>
      <Badge tone={s.tone}>{s.label}</Badge>
    </span>
  );
}

function summary(h: SourceHealthDto): string {
  if (h.recent.calls === 0) return `No calls in the last ${h.recent.windowMinutes} minutes`;
  return `${plural(h.recent.rejected, "rejected call")} of the last ${plural(h.recent.calls, "call")} (last ${h.recent.windowMinutes} min)`;
}

/**
 * Rejections where the operator looks (docs/dashboard.md#sources): clients are told nothing when a
 * message of a batch is rejected, so the source page counts them, by reason, and says when the
 * source is rejecting a meaningful share of what it receives. Each one is in the debugger below.
 */
export function SourceHealthCard({ health }: { health: SourceHealthDto }) {
  const { total, byReason } = health.rejectedLast24h;
  const reasons = Object.entries(byReason).sort((a, b) => b[1] - a[1]);
  return (
    <Card className="mb-6 p-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
          Health <SourceHealthBadge health={health} />
        </h2>
        <p className="text-sm text-slate-500">{summary(health)}</p>
      </div>
      <div className="mt-3 flex flex-wrap items-baseline gap-x-6 gap-y-2">
        <p className="text-sm text-slate-700">
          <strong data-testid="rejected-count" className={`text-2xl tabular-nums ${total > 0 ? "text-red-700" : "text-slate-900"}`}>
            {total.toLocaleString()}
          </strong>{" "}
          rejected in the last 24 h
        </p>
        {reasons.length > 0 ? (
          <ul aria-label="Rejections by reason" className="flex flex-wrap gap-2">
            {reasons.map(([reason, n]) => (
              <li key={reason}>
                <Badge tone="amber">
                  {reason.replaceAll("_", " ")} · {n.toLocaleString()}
                </Badge>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      {total > 0 ? (
        <p className="mt-2 text-xs text-slate-500">
          Clients are not told when a message of a batch is rejected (single calls get a 400). Open the rejected calls in the debugger for
          their reasons.
        </p>
      ) : null}
    </Card>
  );
}
