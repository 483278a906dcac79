"use client";

import { ChoiceGroup } from "@/components/ui/choice-group";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import type { StatsRow } from "@/lib/request-log/contract";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { formatMs, formatRate, selectClass } from "@/components/ui/format";
import { ScrollBox } from "@/components/ui/scroll-box";
import { useDestinations } from "@/components/destinations/hooks";
import { AlertList } from "@/components/alerts/alert-banner";
import { OverviewCharts } from "./charts";
import { RANGES, useDeliveryStats, usePerDestinationStats, type RangeKey } from "./hooks";

function Tile({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <Card className="p-4">
      <div className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</div>
      <output className={`mt-1 block text-2xl font-semibold tabular-nums ${tone ?? "text-slate-900"}`} aria-label={label}>
        {value}
      </output>
    </Card>
  );
}

function Tiles({ t }: { t: StatsRow }) {
  return (
    <div className="mb-4 grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6">
      <Tile label="Attempts" value={t.total.toLocaleString()} />
      <Tile
        label="Success rate"
        value={formatRate(t.successRate)}
        tone={
          t.successRate == null
            ? undefined
            : t.successRate >= 0.99
              ? "text-emerald-600"
              : t.successRate >= 0.9
                ? "text-amber-600"
                : "text-red-600"
        }
      />
      <Tile label="Failed" value={t.failed.toLocaleString()} tone={t.failed ? "text-red-600" : undefined} />
      <Tile label="p50 latency" value={formatMs(t.p50)} />
      <Tile label="p95 latency" value={formatMs(t.p95)} />
      <Tile label="p99 latency" value={formatMs(t.p99)} />
    </div>
  );
}

export function DeliveryOverview() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const asked = params.get("range") ?? "";
  const range: RangeKey = asked in RANGES ? (asked as RangeKey) : "24h";
  const destinationId = params.get("destination");
  const go = (next: { range?: RangeKey; destination?: string | null }) => {
    const q = new URLSearchParams({ range: next.range ?? range });
    const d = next.destination === undefined ? destinationId : next.destination;
    if (d) q.set("destination", d);
    router.replace(`${pathname}?${q}`, { scroll: false });
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
        description="Attempts by outcome, success rate and latency of your webhooks."
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
          <Tiles t={stats.data.totals} />
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
                  <th className="px-4 py-2 text-right font-medium">Attempts</th>
                  <th className="px-4 py-2 text-right font-medium">Success</th>
                  <th className="px-4 py-2 text-right font-medium">Retrying</th>
                  <th className="px-4 py-2 text-right font-medium">Failed</th>
                  <th className="px-4 py-2 text-right font-medium">Success rate</th>
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
                    <td className="px-4 py-2 text-right tabular-nums">{(r.s?.total ?? 0).toLocaleString()}</td>
                    <td className="px-4 py-2 text-right tabular-nums text-emerald-700">{(r.s?.success ?? 0).toLocaleString()}</td>
                    <td className="px-4 py-2 text-right tabular-nums text-amber-700">{(r.s?.retry ?? 0).toLocaleString()}</td>
                    <td className="px-4 py-2 text-right tabular-nums text-red-700">{(r.s?.failed ?? 0).toLocaleString()}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{formatRate(r.s?.successRate)}</td>
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
