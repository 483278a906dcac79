"use client";

import { ShortValue } from "@/components/ui/short-url";
import Link from "next/link";
import { Badge, EmptyState, PageHeader } from "@/components/ui/card";
import { formatRate } from "@/components/ui/format";
import { ListTable } from "@/components/ui/list-table";
import { usePerDestinationStats24h } from "@/components/overview/hooks";
import { useSources } from "@/components/sources/hooks";
import { useDestinations } from "./hooks";
import { useCan } from "@/components/layout/role";

const newLink = (label: string) => (
  <Link
    href="/destinations/new"
    className="inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-on-accent shadow-sm hover:bg-indigo-500"
  >
    {label}
  </Link>
);

function rateTone(rate: number | null | undefined): "green" | "amber" | "red" | "slate" {
  if (rate == null) return "slate";
  return rate >= 0.99 ? "green" : rate >= 0.9 ? "amber" : "red";
}

export function DestinationsList() {
  const destinations = useDestinations();
  const canEdit = useCan("admin");
  const sources = useSources();
  const stats = usePerDestinationStats24h();
  const sourceName = new Map(sources.data?.map((s) => [s.id, s.name]));

  return (
    <>
      <PageHeader
        title="Destinations"
        description="Webhook destinations receive every call of their connected sources as a signed HTTP POST, retried until it succeeds."
        actions={canEdit && destinations.data?.length ? newLink("New destination") : null}
      />
      <ListTable
        query={destinations}
        rowKey={(d) => d.id}
        empty={
          <EmptyState title="No destinations yet" action={canEdit ? newLink("Create your first destination") : null}>
            Add your endpoint&apos;s URL, connect a source, and every track, identify or page call is forwarded to it. No endpoint yet?
            Create a{" "}
            <Link href="/capture" className="text-indigo-700 underline">
              capture URL
            </Link>{" "}
            and use that.
          </EmptyState>
        }
        columns={[
          {
            header: "Destination",
            className: "align-top",
            cell: (d) => (
              <>
                <Link href={`/destinations/${d.id}`} className="font-medium text-slate-900 hover:text-indigo-700">
                  <bdi>{d.name}</bdi>
                </Link>
                <div className="mt-1 flex gap-1">
                  <Badge tone={d.enabled ? "green" : "slate"}>{d.enabled ? "Enabled" : "Disabled"}</Badge>
                  {d.pausedAt ? <Badge tone="amber">Paused</Badge> : null}
                  {d.sharedSecret.set || d.standardWebhooks ? <Badge tone="indigo">Signed</Badge> : null}
                </div>
              </>
            ),
          },
          {
            header: "URLs",
            className: "max-w-xs align-top",
            cell: (d) => (
              <>
                {d.urls.slice(0, 2).map((u) => (
                  <div key={u} className="truncate font-mono text-xs text-slate-600">
                    <ShortValue value={u} max={44} />
                  </div>
                ))}
                {d.urls.length > 2 ? <div className="text-xs text-slate-500">+{d.urls.length - 2} more</div> : null}
              </>
            ),
          },
          {
            header: "Sources",
            className: "align-top",
            cell: (d) =>
              d.sourceIds.length === 0 ? (
                <span className="text-xs text-amber-700">No source connected</span>
              ) : (
                <div className="flex flex-wrap gap-1">
                  {d.sourceIds.map((id) => (
                    <Badge key={id}>
                      <bdi>{sourceName.get(id) ?? "…"}</bdi>
                    </Badge>
                  ))}
                </div>
              ),
          },
          {
            header: "Attempts (24 h)",
            align: "right",
            className: "align-top tabular-nums",
            cell: (d) => {
              const s = stats.data?.[d.id];
              return s ? s.total.toLocaleString("en-US") : stats.isPending ? "…" : "0";
            },
          },
          {
            header: "Events delivered (24 h)",
            align: "right",
            className: "align-top",
            cell: (d) => {
              // Per event, not per attempt: an endpoint that needs two tries per event is 100 % delivered, not 50 %.
              const e = stats.data?.[d.id]?.events;
              const rate = e?.total ? e.delivered / e.total : null;
              return stats.isPending ? "…" : <Badge tone={rateTone(rate)}>{formatRate(rate)}</Badge>;
            },
          },
        ]}
      />
    </>
  );
}
