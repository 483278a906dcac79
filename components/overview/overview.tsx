"use client";

import { ChoiceGroup } from "@/components/ui/choice-group";
import Link from "next/link";
import { useUrlQuery } from "@/components/ui/use-url-query";
import type { EventStats, StatsRow } from "@/lib/request-log/contract";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { formatMs, formatRate, selectClass } from "@/components/ui/format";
import { ScrollBox } from "@/components/ui/scroll-box";
import { useDestinations } from "@/components/destinations/hooks";
import { AlertList } from "@/components/alerts/alert-banner";
import { OverviewCharts } from "./charts";
import { FailureGroups } from "./failure-groups";
import { RANGES, rangeWindow, useDeliveryStats, usePerDestinationStats, type RangeKey } from "./hooks";

function Tile({ label, value, tone, note }: { label: string; value: string; tone?: string; note?: string }) {
  return (
    <Card className="p-4">
      <div className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</div>
      <output className={`mt-1 block text-2xl font-semibold tabular-nums ${tone ?? "text-slate-900"}`} aria-label={label}>
        {value}
      </output>
      {note ? <div className="mt-0.5 text-xs text-slate-500">{note}</div> : null}
    </Card>
  );
}

/** Not yet known is not zero: while the figures load, a cell says so instead of "0". */
function Loading() {
  return (
    <span className="text-slate-400" role="img" aria-label="Loading">
      …
    </span>
  );
}

function Count({ value, loading, tone = "" }: { value: number | undefined; loading: boolean; tone?: string }) {
  return <td className={`px-4 py-2 text-right tabular-nums ${tone}`}>{loading ? <Loading /> : (value ?? 0).toLocaleString("en-US")}</td>;
}

const rateTone = (r: number | null) =>
  r == null ? undefined : r >= 0.99 ? "text-emerald-600" : r >= 0.9 ? "text-amber-600" : "text-red-600";

/**
 * Events first (a message's delivery to a destination, counted once by how it stands now), then
 * attempts: a flaky endpoint that needs three tries per event reads as "100 % delivered, all
 * retried", not as "33 % success" (docs/dashboard.md#delivery-overview).
 */
function Tiles({ t, e }: { t: StatsRow; e: EventStats }) {
  const delivered = e.total ? e.delivered / e.total : null;
  return (
    <div className="mb-4 space-y-2">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Events</h2>
      <div className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-5">
        <Tile label="Events" value={e.total.toLocaleString("en-US")} note="deliveries of a message to a destination" />
        <Tile
          label="Events delivered"
          value={formatRate(delivered)}
          tone={rateTone(delivered)}
          note={`${e.delivered.toLocaleString("en-US")} of ${e.total.toLocaleString("en-US")}`}
        />
        <Tile label="Events retried" value={e.retried.toLocaleString("en-US")} note="needed more than one attempt" />
        <Tile label="Events still retrying" value={e.pending.toLocaleString("en-US")} tone={e.pending ? "text-amber-600" : undefined} />
        <Tile label="Events failed" value={e.failed.toLocaleString("en-US")} tone={e.failed ? "text-red-600" : undefined} />
      </div>
      <h2 className="pt-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Attempts</h2>
      <div className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6">
        <Tile label="Attempts" value={t.total.toLocaleString("en-US")} />
        <Tile label="Attempt success rate" value={formatRate(t.successRate)} tone={rateTone(t.successRate)} />
        <Tile label="Failed attempts" value={t.failed.toLocaleString("en-US")} tone={t.failed ? "text-red-600" : undefined} />
        <Tile label="p50 latency" value={formatMs(t.p50)} />
        <Tile label="p95 latency" value={formatMs(t.p95)} />
        <Tile label="p99 latency" value={formatMs(t.p99)} />
      </div>
    </div>
  );
}

export function DeliveryOverview() {
  const { params, latest, replace } = useUrlQuery();
  const rangeOf = (p: { get(key: string): string | null }): RangeKey => {
    const asked = p.get("range") ?? "";
    return asked in RANGES ? (asked as RangeKey) : "24h";
  };
  const range = rangeOf(params);
  const destinationId = params.get("destination");
  // Built on the last query written (useUrlQuery): a range and a destination picked in quick succession both stay.
  const go = (next: { range?: RangeKey; destination?: string | null }) => {
    const was = latest();
    const q = new URLSearchParams({ range: next.range ?? rangeOf(was) });
    const d = next.destination === undefined ? was.get("destination") : next.destination;
    if (d) q.set("destination", d);
    replace(q);
  };

  const destinations = useDestinations();
  const stats = useDeliveryStats(range, destinationId);
  const perDestination = usePerDestinationStats(range);
  const name = new Map(destinations.data?.map((d) => [d.id, d.name]));
  const rows = (destinations.data ?? []).map((d) => ({
    id: d.id,
    name: d.name,
    enabled: d.enabled,
    s: perDestination.data?.find((x) => x.destinationId === d.id),
  }));

  return (
    <>
      <PageHeader
        title="Delivery overview"
        description="Events delivered, retried and failed; attempts by outcome and latency; what failed and why."
        actions={
          <>
            <select
              aria-label="Destination"
              className={selectClass}
              value={destinationId ?? ""}
              onChange={(e) => go({ destination: e.target.value || null })}
            >
              <option value="">All destinations</option>
              {destinations.data?.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
            <ChoiceGroup
              label="Time range"
              options={(Object.keys(RANGES) as RangeKey[]).map((k) => ({ value: k, label: RANGES[k].label }))}
              value={range}
              onChange={(k) => go({ range: k })}
            />
          </>
        }
      />
      <AlertList />
      {stats.isPending ? (
        <Spinner label="Loading statistics…" />
      ) : stats.isError ? (
        <ErrorNote error={stats.error} />
      ) : (
        <>
          <Tiles t={stats.data.totals} e={stats.data.events} />
          {stats.data.totals.total === 0 ? (
            <div className="mb-4">
              <EmptyState
                title={`No attempts in the ${RANGES[range].label.toLowerCase()}${destinationId ? ` for ${name.get(destinationId) ?? "this destination"}` : ""}`}
              >
                Charts fill in as events are delivered.{" "}
                <Link href="/destinations" className="text-indigo-700 underline">
                  Send a test event
                </Link>{" "}
                from a destination, or pick a longer range.
              </EmptyState>
            </div>
          ) : (
            <OverviewCharts stats={stats.data} />
          )}
        </>
      )}
      <FailureGroups {...rangeWindow(range)} destinationId={destinationId} />
      <Card className="mt-6">
        <h2 className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-900">
          By destination · {RANGES[range].label.toLowerCase()}
        </h2>
        {destinations.data?.length === 0 ? (
          <div className="p-4">
            <EmptyState
              title="No destinations yet"
              action={
                <Link href="/destinations/new" className="text-sm text-indigo-700 underline">
                  Create a destination
                </Link>
              }
            />
          </div>
        ) : (
          <ScrollBox label="Per-destination statistics, scrollable">
            <table className="w-full text-sm" aria-label="Per-destination statistics">
              <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th className="px-4 py-2 font-medium">Destination</th>
                  <th className="px-4 py-2 text-right font-medium">Events</th>
                  <th className="px-4 py-2 text-right font-medium">Delivered</th>
                  <th className="px-4 py-2 text-right font-medium">Retried</th>
                  <th className="px-4 py-2 text-right font-medium">Failed</th>
                  <th className="px-4 py-2 text-right font-medium">Attempts</th>
                  <th className="px-4 py-2 text-right font-medium">Attempt success</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {rows.map((r) => (
                  <tr key={r.id} className={r.id === destinationId ? "bg-indigo-50" : "hover:bg-slate-50"}>
                    <td className="px-4 py-2">
                      <button
                        type="button"
                        className="font-medium text-slate-900 hover:text-indigo-700"
                        onClick={() => go({ destination: r.id === destinationId ? null : r.id })}
                      >
                        <bdi>{r.name}</bdi>
                      </button>
                      {!r.enabled ? (
                        <span className="ml-2">
                          <Badge>Disabled</Badge>
                        </span>
                      ) : null}
                    </td>
                    <Count value={r.s?.events.total} loading={perDestination.isPending} />
                    <Count value={r.s?.events.delivered} loading={perDestination.isPending} tone="text-emerald-700" />
                    <Count value={r.s?.events.retried} loading={perDestination.isPending} tone="text-amber-700" />
                    <Count value={r.s?.events.failed} loading={perDestination.isPending} tone="text-red-700" />
                    <Count value={r.s?.total} loading={perDestination.isPending} />
                    <td className="px-4 py-2 text-right tabular-nums">
                      {perDestination.isPending ? <Loading /> : formatRate(r.s?.successRate)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        )}
      </Card>
    </>
  );
}
