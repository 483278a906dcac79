"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { DestinationDto } from "@/lib/destinations/schemas";
import { api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { EndpointHealth } from "./endpoint-health";
import { ConfirmDialog } from "@/components/ui/dialog";
import { formatRate } from "@/components/ui/format";
import { fetchSources, sourceKeys } from "@/components/sources/queries";
import { describeMinutes } from "./form-state";
import { destinationKeys, fetchDestination, fetchDestinationStats24h } from "./queries";
import { RecentAttempts } from "./recent-attempts";
import { TestSendPanel } from "./test-send";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_minmax(0,1fr)] gap-2 py-2 text-sm">
      <dt className="text-slate-500">{label}</dt>
      <dd className="min-w-0 text-slate-900">{children}</dd>
    </div>
  );
}

export function DestinationDetail({ id }: { id: string }) {
  const qc = useQueryClient();
  const router = useRouter();
  const destination = useQuery({ queryKey: destinationKeys.detail(id), queryFn: ({ signal }) => fetchDestination(id, signal) });
  const sources = useQuery({ queryKey: sourceKeys.list(), queryFn: ({ signal }) => fetchSources(signal) });
  const stats = useQuery({ queryKey: destinationKeys.stats24h(), queryFn: ({ signal }) => fetchDestinationStats24h(signal), refetchInterval: 30_000 });
  const [confirming, setConfirming] = useState(false);

  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api<DestinationDto>(`/api/destinations/${id}`, { method: "PATCH", body: { enabled } }),
    onSuccess: (d) => {
      qc.setQueryData(destinationKeys.detail(id), d);
      return qc.invalidateQueries({ queryKey: destinationKeys.list() });
    },
  });
  const remove = useMutation({
    mutationFn: () => api(`/api/destinations/${id}`, { method: "DELETE" }),
    onSuccess: async () => {
      qc.removeQueries({ queryKey: destinationKeys.detail(id) });
      await qc.invalidateQueries({ queryKey: destinationKeys.list() });
      router.push("/destinations");
    },
  });

  if (destination.isPending) return <Spinner />;
  if (destination.isError) return <ErrorNote error={destination.error} />;
  const d = destination.data;
  const s = stats.data?.[d.id];
  const sourceName = new Map(sources.data?.map((x) => [x.id, x.name]));

  return (
    <>
      <div className="mb-2 text-sm"><Link href="/destinations" className="text-slate-500 hover:text-slate-800">← Destinations</Link></div>
      <PageHeader
        title={d.name}
        description={<>Webhooks destination · {s ? `${s.total.toLocaleString()} attempts, ${formatRate(s.successRate)} successful in the last 24 h` : "no attempts in the last 24 h"}</>}
        actions={
          <>
            <Badge tone={d.enabled ? "green" : "slate"}>{d.enabled ? "Enabled" : "Disabled"}</Badge>
            <Button variant="secondary" onClick={() => toggle.mutate(!d.enabled)} disabled={toggle.isPending}>{d.enabled ? "Disable" : "Enable"}</Button>
            <Link href={`/destinations/${d.id}/edit`} className="rounded-md bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50">Edit</Link>
            <Button variant="danger" onClick={() => setConfirming(true)}>Delete</Button>
          </>
        }
      />
      <ErrorNote error={toggle.error} />
      <ConfirmDialog
        open={confirming}
        title={`Delete "${d.name}"?`}
        confirmLabel="Delete destination"
        tone="danger"
        busy={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate()}
      >
        Nothing more is sent to its URLs, pending retries stop, and its attempts leave the request log.
        <ErrorNote error={remove.error} />
      </ConfirmDialog>

      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-6">
          <TestSendPanel destinationId={d.id} />
          <RecentAttempts destinationId={d.id} />
        </div>
        <div className="space-y-6">
        <Card className="p-5">
          <h2 className="text-sm font-semibold text-slate-900">Endpoint health</h2>
          <p className="mt-1 text-xs text-slate-500">From each URL's recent attempts; a failing URL never holds back the others.</p>
          <EndpointHealth destinationId={d.id} />
        </Card>
        <Card className="h-fit p-5">
          <h2 className="text-sm font-semibold text-slate-900">Configuration</h2>
          <dl className="mt-2 divide-y divide-slate-100">
            <Row label="URLs">
              {d.urls.map((u) => <div key={u} className="break-all font-mono text-xs">{u}</div>)}
            </Row>
            <Row label="Mode">{d.mode === "any" ? "Any URL (first 2xx wins)" : "Every URL"}</Row>
            <Row label="Headers">
              {d.headers.length ? d.headers.map((h) => <div key={h.name} className="font-mono text-xs">{h.name}: ••••</div>) : <span className="text-slate-500">none</span>}
            </Row>
            <Row label="Signing">
              <div className="flex flex-wrap gap-1">
                {d.sharedSecret ? <Badge tone="indigo">X-Signature</Badge> : null}
                {d.standardWebhooks ? <Badge tone="indigo">Standard Webhooks</Badge> : null}
                {!d.sharedSecret && !d.standardWebhooks ? <span className="text-slate-500">unsigned</span> : null}
              </div>
            </Row>
            <Row label="Retries">for {describeMinutes(String(d.retryWindowMinutes))}</Row>
            <Row label="Sources">
              {d.sourceIds.length ? (
                <div className="flex flex-wrap gap-1">{d.sourceIds.map((sid) => <Link key={sid} href={`/sources/${sid}`}><Badge>{sourceName.get(sid) ?? "…"}</Badge></Link>)}</div>
              ) : (
                <span className="text-amber-700">none — <Link href={`/destinations/${d.id}/edit`} className="underline">connect a source</Link></span>
              )}
            </Row>
          </dl>
        </Card>
        </div>
      </div>
    </>
  );
}
