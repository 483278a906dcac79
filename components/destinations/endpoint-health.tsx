"use client";

import { plural } from "@/components/ui/format";
import { ShortValue } from "@/components/ui/short-url";
import type { EndpointState } from "@/lib/destinations/contract";
import { useEnableUrlMutation } from "@/components/alerts/hooks";
import { Button } from "@/components/ui/button";
import { Badge, ErrorNote, Spinner } from "@/components/ui/card";
import { useDestinationHealth } from "./hooks";
import { describeErrorText } from "@/components/ui/describe-error";

/**
 * Per-URL health of one destination (GET /api/destinations/:id/health): state, success rate of the
 * recent attempts, failures in a row and the last error. Refreshes every 15 s. Place it on the
 * destination's page or under each destination in the list: <EndpointHealth destinationId={id} />.
 */
const TONE: Record<EndpointState, "green" | "amber" | "red" | "slate"> = {
  healthy: "green",
  degraded: "amber",
  unhealthy: "red",
  unknown: "slate",
};
const LABEL: Record<EndpointState, string> = {
  healthy: "Healthy",
  degraded: "Degraded",
  unhealthy: "Unhealthy",
  unknown: "No recent attempts",
};

const percent = (r: number | null) => (r === null ? "—" : `${Math.round(r * 1000) / 10} %`);
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "never");

export function EndpointHealthBadge({ state }: { state: EndpointState }) {
  return <Badge tone={TONE[state]}>{LABEL[state]}</Badge>;
}

/** A URL the endpoint alerts disabled (docs/alerts.md#disabling), with its one-click re-enable. */
function DisabledUrl({ destinationId, url }: { destinationId: string; url: string }) {
  const enable = useEnableUrlMutation();
  return (
    <span className="flex flex-wrap items-center gap-2">
      <Badge tone="red">Disabled</Badge>
      <Button
        variant="secondary"
        disabled={enable.isPending}
        onClick={() => enable.mutate({ destinationId, url })}
        aria-label={`Re-enable ${url}`}
      >
        Re-enable
      </Button>
    </span>
  );
}

export function EndpointHealth({ destinationId, compact = false }: { destinationId: string; compact?: boolean }) {
  const q = useDestinationHealth(destinationId);
  if (q.isPending) return <Spinner label="Checking endpoints…" />;
  if (q.isError) return <ErrorNote error={q.error} />;
  return (
    <ul className="divide-y divide-slate-100" aria-label="Endpoint health">
      {q.data.urls.map((u) => (
        <li key={u.url} className="flex flex-wrap items-start justify-between gap-2 py-2" data-state={u.state}>
          <div className="min-w-0">
            <p className="truncate font-mono text-xs text-slate-700">
              <ShortValue value={u.url} max={56} />
            </p>
            {!compact && u.attempts > 0 ? (
              <p className="mt-0.5 text-xs text-slate-500">
                {u.attempts === 1
                  ? `the last attempt ${u.successRate === 1 ? "succeeded" : "failed"}`
                  : `${percent(u.successRate)} of the last ${plural(u.attempts, "attempt")} succeeded`}
                {u.consecutiveFailures > 0 ? ` · ${u.consecutiveFailures} failed in a row` : ""} · last success{" "}
                {u.lastSuccessAt ? (
                  // The reader's local time: the server's first render may have written it in another zone.
                  <time dateTime={u.lastSuccessAt} suppressHydrationWarning>
                    {when(u.lastSuccessAt)}
                  </time>
                ) : (
                  "never"
                )}
              </p>
            ) : null}
            {!compact && u.lastError && u.state !== "healthy" ? (
              <p className="mt-0.5 truncate text-xs text-red-700">Last error: {describeErrorText(u.lastError)}</p>
            ) : null}
          </div>
          {u.disabled ? <DisabledUrl destinationId={destinationId} url={u.url} /> : <EndpointHealthBadge state={u.state} />}
        </li>
      ))}
    </ul>
  );
}
