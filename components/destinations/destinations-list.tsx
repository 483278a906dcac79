"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { formatRate } from "@/components/ui/format";
import { fetchSources, sourceKeys } from "@/components/sources/queries";
import { destinationKeys, fetchDestinationStats24h, fetchDestinations } from "./queries";

const newLink = (label: string) => (
  <Link href="/destinations/new" className="inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-indigo-500">
    {label}
  </Link>
);

function rateTone(rate: number | null | undefined): "green" | "amber" | "red" | "slate" {
  if (rate == null) return "slate";
  return rate >= 0.99 ? "green" : rate >= 0.9 ? "amber" : "red";
}

export function DestinationsList() {
  const destinations = useQuery({ queryKey: destinationKeys.list(), queryFn: ({ signal }) => fetchDestinations(signal) });
  const sources = useQuery({ queryKey: sourceKeys.list(), queryFn: ({ signal }) => fetchSources(signal) });
  const stats = useQuery({ queryKey: destinationKeys.stats24h(), queryFn: ({ signal }) => fetchDestinationStats24h(signal), refetchInterval: 30_000 });
  const sourceName = new Map(sources.data?.map((s) => [s.id, s.name]));

  return (
    <>
      <PageHeader
        title="Destinations"
        description="Webhooks destinations receive every call of their connected sources as a signed HTTP POST, retried until it succeeds."
        actions={destinations.data?.length ? newLink("New destination") : null}
      />
      {destinations.isPending ? (
        <Spinner />
      ) : destinations.isError ? (
        <ErrorNote error={destinations.error} />
      ) : destinations.data.length === 0 ? (
        <EmptyState title="No destinations yet" action={newLink("Create your first destination")}>
          Add your endpoint&apos;s URL, connect a source, and every track, identify or page call is forwarded to it. No endpoint yet? Create a{" "}
          <Link href="/capture" className="text-indigo-700 underline">capture URL</Link> and use that.
        </EmptyState>
      ) : (
        <Card>
          <table className="w-full text-sm">
            <thead className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Destination</th>
                <th className="px-4 py-2 font-medium">URLs</th>
                <th className="px-4 py-2 font-medium">Sources</th>
                <th className="px-4 py-2 text-right font-medium">Attempts (24 h)</th>
                <th className="px-4 py-2 text-right font-medium">Success (24 h)</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {destinations.data.map((d) => {
                const s = stats.data?.[d.id];
                return (
                  <tr key={d.id} className="hover:bg-slate-50">
                    <td className="px-4 py-3 align-top">
                      <Link href={`/destinations/${d.id}`} className="font-medium text-slate-900 hover:text-indigo-700">{d.name}</Link>
                      <div className="mt-1 flex gap-1">
                        <Badge tone={d.enabled ? "green" : "slate"}>{d.enabled ? "Enabled" : "Disabled"}</Badge>
                        {d.sharedSecret || d.standardWebhooks ? <Badge tone="indigo">Signed</Badge> : null}
                      </div>
                    </td>
                    <td className="max-w-xs px-4 py-3 align-top">
                      {d.urls.slice(0, 2).map((u) => (
                        <div key={u} className="truncate font-mono text-xs text-slate-600" title={u}>{u}</div>
                      ))}
                      {d.urls.length > 2 ? <div className="text-xs text-slate-500">+{d.urls.length - 2} more</div> : null}
                    </td>
                    <td className="px-4 py-3 align-top">
                      {d.sourceIds.length === 0 ? (
                        <span className="text-xs text-amber-700">No source connected</span>
                      ) : (
                        <div className="flex flex-wrap gap-1">
                          {d.sourceIds.map((id) => <Badge key={id}>{sourceName.get(id) ?? "…"}</Badge>)}
                        </div>
                      )}
                    </td>
                    <td className="px-4 py-3 text-right align-top tabular-nums">{s ? s.total.toLocaleString() : stats.isPending ? "…" : "0"}</td>
                    <td className="px-4 py-3 text-right align-top">
                      <Badge tone={rateTone(s?.successRate)}>{formatRate(s?.successRate)}</Badge>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Card>
      )}
    </>
  );
}
