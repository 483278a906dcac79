"use client";

import { ShortValue } from "@/components/ui/short-url";
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
import { describeFilter, describeMinutes } from "./form-state";
import {
  revealDestinationValue,
  useDeleteDestinationMutation,
  useDestination,
  usePauseDestinationMutation,
  useUpdateDestinationMutation,
} from "./hooks";
import { RecentAttempts } from "./recent-attempts";
import { TestSendPanel } from "./test-send";
import { RotationNotice } from "./secret-rotation";
import { StoredValue } from "./write-only-field";
import { describeShape } from "./describe-shape";
import { describeAuth } from "./auth-section";
import { describeTls } from "./tls-section";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_minmax(0,1fr)] gap-2 py-2 text-sm">
      <dt className="text-slate-500">{label}</dt>
      <dd className="min-w-0 text-slate-900">{children}</dd>
    </div>
  );
}

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
  const shape = describeShape(d);

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
      <p id="dest-pause-hint" className={d.pausedAt ? "mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" : "sr-only"}>
        {d.pausedAt
          ? `Paused since ${new Date(d.pausedAt).toLocaleString()}: new calls wait here, unsent and not failed, until it is resumed.`
          : "Pausing holds new deliveries until it is resumed; nothing is dropped."}
      </p>

      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-6">
          {canEdit ? <TestSendPanel destinationId={d.id} /> : null}
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
          <Card className="h-fit p-5">
            <h2 className="text-sm font-semibold text-slate-900">Configuration</h2>
            <dl className="mt-2 divide-y divide-slate-100">
              <Row label="URLs">
                {d.urls.map((u) => (
                  <div key={u} className="font-mono text-xs">
                    <ShortValue value={u} max={60} />
                  </div>
                ))}
              </Row>
              <Row label="Mode">{d.mode === "any" ? "Any URL (first 2xx wins)" : "Every URL"}</Row>
              <Row label="Headers">
                {d.headers.length ? (
                  <div className="space-y-1">
                    {d.headers.map((h) => (
                      <div key={h.name} className="flex flex-wrap items-center gap-1 font-mono text-xs">
                        <span>{h.name}:</span>
                        <StoredValue
                          id={`detail-header-${h.name}`}
                          label={`${h.name} value`}
                          state={{ stored: h.value }}
                          reveal={canEdit ? () => revealDestinationValue(d.id, { header: h.name }) : undefined}
                        />
                      </div>
                    ))}
                  </div>
                ) : (
                  <span className="text-slate-500">none</span>
                )}
              </Row>
              <Row label="Signing">
                <div className="space-y-2">
                  {d.sharedSecret.set ? (
                    <div>
                      <Badge tone="indigo">X-Signature</Badge>
                      <StoredValue
                        id="detail-shared-secret"
                        label="Shared secret"
                        state={{ stored: d.sharedSecret }}
                        reveal={canEdit ? () => revealDestinationValue(d.id, { secret: "sharedSecret" }) : undefined}
                      />
                    </div>
                  ) : null}
                  {d.standardWebhooks ? (
                    <div>
                      <Badge tone="indigo">Standard Webhooks</Badge>
                      {d.standardSecret.set ? (
                        <StoredValue
                          id="detail-standard-secret"
                          label="Signing secret"
                          state={{ stored: d.standardSecret }}
                          reveal={canEdit ? () => revealDestinationValue(d.id, { secret: "standardSecret" }) : undefined}
                        />
                      ) : null}
                    </div>
                  ) : null}
                  {!d.sharedSecret.set && !d.standardWebhooks ? <span className="text-slate-500">unsigned</span> : null}
                  <RotationNotice destination={d} />
                  <p className={canEdit ? "text-xs text-slate-500" : "hidden"}>
                    Secrets and header values are write-only: replace, rotate or remove them by{" "}
                    <Link href={`/destinations/${d.id}/edit`} className="underline">
                      editing the destination
                    </Link>
                    .
                  </p>
                </div>
              </Row>
              <Row label="Authentication">
                {d.auth ? (
                  <div className="space-y-1">
                    <span className="[overflow-wrap:anywhere]">{describeAuth(d.auth)}</span>
                    <StoredValue
                      id="detail-auth-client-secret"
                      label="Client secret"
                      state={{ stored: d.auth.clientSecret }}
                      reveal={canEdit ? () => revealDestinationValue(d.id, { secret: "authClientSecret" }) : undefined}
                    />
                  </div>
                ) : (
                  <span className="text-slate-500">none</span>
                )}
              </Row>
              <Row label="Client certificate">
                {d.tls ? (
                  <span className="[overflow-wrap:anywhere]">{describeTls(d.tls)}</span>
                ) : (
                  <span className="text-slate-500">none</span>
                )}
              </Row>
              <Row label="Retries">for {describeMinutes(String(d.retryWindowMinutes))}</Row>
              <Row label="Sources">
                {d.sourceIds.length ? (
                  <div className="flex flex-wrap gap-1">
                    {d.sourceIds.map((sid) => (
                      <Link key={sid} href={`/sources/${sid}`}>
                        <Badge>
                          <bdi>{sourceName.get(sid) ?? "…"}</bdi>
                        </Badge>
                      </Link>
                    ))}
                  </div>
                ) : (
                  <span className="text-amber-700">
                    none —{" "}
                    <Link href={`/destinations/${d.id}/edit`} className="underline">
                      connect a source
                    </Link>
                  </span>
                )}
              </Row>
              <Row label="Receives">
                <span className="[overflow-wrap:anywhere]">{describeFilter(d.filter)}</span>
              </Row>
              <Row label="Request">{shape.request}</Row>
              <Row label="Numbers">{shape.numbers}</Row>
              <Row label="Batching">{shape.batching}</Row>
              <Row label="Rate limit">{shape.rateLimit}</Row>
              <Row label="Ordering">
                {d.ordering === "perUser"
                  ? `Per user: a user's message waits for their earlier ones (at most ${plural(d.maxHoldMinutes, "minute")})`
                  : "Off: each message goes as soon as it can"}
              </Row>
            </dl>
            {canEdit ? (
              <p className="pt-2 text-xs">
                <Link href={`/destinations/${d.id}/edit`} className="underline">
                  Change what it sends
                </Link>
              </p>
            ) : null}
          </Card>
        </div>
      </div>
    </>
  );
}
