"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { DeleteButton } from "@/components/ui/delete-button";
import { useCan } from "@/components/layout/role";
import { formatRate, plural } from "@/components/ui/format";
import { usePerDestinationStats24h } from "@/components/overview/hooks";
import { useSources } from "@/components/sources/hooks";
import { BackfillPanel } from "@/components/backfills/backfill-panel";
import { EndpointHealth } from "./endpoint-health";
import { Backlog } from "./backlog";
import { useDeleteDestinationMutation, useDestination, usePauseDestinationMutation, useUpdateDestinationMutation } from "./hooks";
import { RecentAttempts } from "./recent-attempts";
import { TestSendPanel } from "./test-send";
import { ConfigurationCard } from "./configuration-card";
import { SecretsCard } from "./secrets-card";

export function DestinationDetail({ id }: { id: string }) {
  const router = useRouter();
  const destination = useDestination(id);
  const sources = useSources();
  const stats = usePerDestinationStats24h();
  const toggle = useUpdateDestinationMutation();
  const remove = useDeleteDestinationMutation();
  const pause = usePauseDestinationMutation();
  // Viewers see the configuration, not its secrets, and no control that changes it (docs/management-api.md#roles).
  const canEdit = useCan("admin");

  if (destination.isPending) return <Spinner />;
  if (destination.isError) return <ErrorNote error={destination.error} />;
  const d = destination.data;
  const s = stats.data?.[d.id];
  const sourceName = new Map(sources.data?.map((x) => [x.id, x.name]));

  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/destinations" className="text-slate-500 hover:text-slate-800">
          ← Destinations
        </Link>
      </div>
      <PageHeader
        title={d.name}
        description={
          <>
            Webhook destination ·{" "}
            {stats.isPending
              ? "loading the last 24 h…"
              : s
                ? `${plural(s.events.total, "event")} (${plural(s.total, "attempt")}), ${formatRate(s.events.total ? s.events.delivered / s.events.total : null)} of events delivered in the last 24 h`
                : "no attempts in the last 24 h"}
          </>
        }
        actions={
          <>
            <Badge tone={d.enabled ? "green" : "slate"}>{d.enabled ? "Enabled" : "Disabled"}</Badge>
            {d.pausedAt ? <Badge tone="amber">Paused</Badge> : null}
            {canEdit ? (
              <>
                {/* docs/routing.md#pause: deliveries wait while paused, nothing is dropped. */}
                <Button
                  variant="secondary"
                  onClick={() => pause.mutate({ id, pause: !d.pausedAt })}
                  disabled={pause.isPending}
                  aria-describedby="dest-pause-hint"
                >
                  {d.pausedAt ? "Resume" : "Pause"}
                </Button>
                <Button
                  variant="secondary"
                  onClick={() => toggle.mutate({ id, patch: { enabled: !d.enabled } })}
                  disabled={toggle.isPending}
                >
                  {d.enabled ? "Disable" : "Enable"}
                </Button>
                <Link
                  href={`/destinations/${d.id}/edit`}
                  className="rounded-md bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-sm ring-1 ring-inset ring-slate-300 hover:bg-slate-50"
                >
                  Edit
                </Link>
                <DeleteButton
                  title={`Delete "${d.name}"?`}
                  confirmLabel="Delete destination"
                  busy={remove.isPending}
                  error={remove.error}
                  onConfirm={() => remove.mutate(id, { onSuccess: () => router.push("/destinations") })}
                >
                  Nothing more is sent to its URLs, pending retries stop, and its attempts leave the request log.
                </DeleteButton>
              </>
            ) : (
              <Badge>Read-only</Badge>
            )}
          </>
        }
      />
      <ErrorNote error={toggle.error} />
      <ErrorNote error={pause.error} />
      {/* The time is the reader's local time: the server's first render may have written it in another zone. */}
      <p
        id="dest-pause-hint"
        className={d.pausedAt ? "mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" : "sr-only"}
        suppressHydrationWarning
      >
        {d.pausedAt
          ? `Paused since ${new Date(d.pausedAt).toLocaleString()}: new calls wait here, unsent and not failed, until it is resumed.`
          : "Pausing holds new deliveries until it is resumed; nothing is dropped."}
      </p>

      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <div className="min-w-0 space-y-6">
          {canEdit ? <TestSendPanel destinationId={d.id} /> : null}
          <SecretsCard destination={d} canEdit={canEdit} />
          <BackfillPanel
            destinationId={d.id}
            sources={d.sourceIds.map((sid) => ({ id: sid, name: sourceName.get(sid) ?? sid }))}
            canEdit={canEdit}
          />
          <RecentAttempts destinationId={d.id} />
        </div>
        <div className="min-w-0 space-y-6">
          <Card className="p-5">
            <h2 className="text-sm font-semibold text-slate-900">Endpoint health</h2>
            <p className="mt-1 text-xs text-slate-500">From each URL's recent attempts; a failing URL never holds back the others.</p>
            <EndpointHealth destinationId={d.id} />
          </Card>
          <Card className="p-5">
            <h2 className="text-sm font-semibold text-slate-900">Backlog</h2>
            <Backlog destination={d} />
          </Card>
          <ConfigurationCard destination={d} sourceName={sourceName} canEdit={canEdit} />
        </div>
      </div>
    </>
  );
}
