"use client";

import Link from "next/link";
import { Badge, Card } from "@/components/ui/card";
import { ShortValue } from "@/components/ui/short-url";
import type { DestinationDto } from "@/lib/destinations/contract";
import { describeFilter, describeMinutes, describeShape, METHOD_LABELS } from "./describe-shape";
import { revealDestinationValue } from "./hooks";
import { StoredValue } from "./write-only-field";

/** The edit form's sections a row links to: each is `id` on its card (destination-form.tsx), focused on arrival. */
export type FormSection =
  | "endpoints"
  | "request-shape"
  | "batching"
  | "headers"
  | "signing"
  | "retries"
  | "authentication"
  | "rate-limit"
  | "ordering"
  | "sources"
  | "filter";

const DAY_MS = 86_400_000;

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** "2027-01-31 (in 56 days)": a certificate's end, and how near it is. */
export function describeExpiry(expiresAt: string, now = Date.now()): string {
  const days = Math.floor((new Date(expiresAt).getTime() - now) / DAY_MS);
  const when = days < 0 ? "expired" : days === 0 ? "today" : days === 1 ? "in 1 day" : `in ${days} days`;
  return `${expiresAt.slice(0, 10)} (${when})`;
}

/**
 * The destination page's Configuration card (docs/dashboard.md#destinations): every setting the form
 * holds, in a word or a line ("None"/"Off" when unset), each with a link that opens the form at its
 * section, focused, for those who may change it.
 */
export function ConfigurationCard({
  destination: d,
  sourceName,
  canEdit,
}: {
  destination: DestinationDto;
  sourceName: Map<string, string>;
  canEdit: boolean;
}) {
  const shape = describeShape(d);
  // Where each row's Change link goes; none for those who may not change it.
  const edit = (section: FormSection) => (canEdit ? `/destinations/${d.id}/edit#${section}` : undefined);
  const none = <span className="text-slate-500">None</span>;
  return (
    <Card className="h-fit p-5">
      <h2 className="text-sm font-semibold text-slate-900">Configuration</h2>
      <dl data-testid="configuration" className="mt-2 divide-y divide-slate-100">
        <Row label="URLs" edit={edit("endpoints")}>
          {d.urls.map((u) => (
            <div key={u} className="font-mono text-xs">
              <ShortValue value={u} max={60} />
            </div>
          ))}
          <div className="mt-1 text-xs text-slate-500">{d.mode === "any" ? "Any URL (first 2xx wins)" : "Every URL"}</div>
        </Row>
        <Row label="Method" edit={edit("request-shape")}>
          <span className="font-mono text-xs">{shape.method}</span>
        </Row>
        <Row label="Body" edit={edit("request-shape")}>
          <span className="[overflow-wrap:anywhere]">{shape.body}</span>
        </Row>
        <Row label="URL templates" edit={edit("endpoints")}>
          {shape.urlTemplates === "None" ? none : shape.urlTemplates}
        </Row>
        <Row label="Numbers" edit={edit("request-shape")}>
          {shape.numbers}
        </Row>
        <Row label="Batching" edit={edit("batching")}>
          {shape.batching}
        </Row>
        <Row label="Rate limit" edit={edit("rate-limit")}>
          {shape.rateLimit === "None" ? none : shape.rateLimit}
        </Row>
        <Row label="Ordering" edit={edit("ordering")}>
          {shape.ordering}
        </Row>
        <Row label="Headers" edit={edit("headers")}>
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
            none
          )}
        </Row>
        <Row label="Signing" edit={edit("signing")}>
          {d.sharedSecret.set || d.standardSecret.set ? (
            <div className="flex flex-wrap gap-1">
              {d.sharedSecret.set ? <Badge tone="indigo">X-Signature</Badge> : null}
              {d.standardSecret.set ? <Badge tone="indigo">Standard Webhooks</Badge> : null}
            </div>
          ) : (
            <span className="text-slate-500">None: unsigned</span>
          )}
        </Row>
        <Row label="OAuth2" edit={edit("authentication")}>
          {d.auth ? (
            <div className="space-y-0.5">
              <span className="block [overflow-wrap:anywhere]">OAuth 2.0 client credentials from {hostOf(d.auth.tokenUrl)}</span>
              <dl className="text-xs text-slate-600">
                <Detail label="Token URL">
                  <ShortValue value={d.auth.tokenUrl} max={48} className="font-mono" />
                </Detail>
                <Detail label="Client id">
                  <span className="font-mono">{d.auth.clientId}</span>
                </Detail>
                <Detail label="Method">{METHOD_LABELS[d.auth.method]}</Detail>
                {d.auth.scope ? <Detail label="Scope">{d.auth.scope}</Detail> : null}
                {d.auth.audience ? <Detail label="Audience">{d.auth.audience}</Detail> : null}
              </dl>
            </div>
          ) : (
            none
          )}
        </Row>
        <Row label="mTLS" edit={edit("authentication")}>
          {d.tls ? (
            <dl className="text-xs text-slate-600">
              <Detail label="Subject">
                <span className="font-mono">{d.tls.subject}</span>
              </Detail>
              <Detail label="Expires">{describeExpiry(d.tls.expiresAt)}</Detail>
              {d.tls.caSubject ? (
                <Detail label="Trusts">
                  <span className="font-mono">{d.tls.caSubject}</span>
                </Detail>
              ) : null}
            </dl>
          ) : (
            none
          )}
        </Row>
        <Row label="Retries" edit={edit("retries")}>
          for {describeMinutes(String(d.retryWindowMinutes))}
        </Row>
        <Row label="Sources" edit={edit("sources")}>
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
            <span className="text-amber-700">none: it receives no calls</span>
          )}
        </Row>
        <Row label="Receives" edit={edit("filter")}>
          <span className="[overflow-wrap:anywhere]">{describeFilter(d.filter)}</span>
        </Row>
      </dl>
    </Card>
  );
}

function Row({ label, edit, children }: { label: string; edit: string | undefined; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[7.5rem_minmax(0,1fr)] gap-2 py-2 text-sm">
      <dt className="text-slate-500">
        <span className="block">{label}</span>
        {edit ? (
          <Link
            href={edit}
            aria-label={`Change ${label.toLowerCase()}`}
            className="text-xs text-indigo-700 underline hover:text-indigo-900"
          >
            Change
          </Link>
        ) : null}
      </dt>
      <dd className="min-w-0 text-slate-900">{children}</dd>
    </div>
  );
}

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-wrap gap-x-1">
      <dt className="text-slate-500">{label}:</dt>
      <dd className="min-w-0 [overflow-wrap:anywhere]">{children}</dd>
    </div>
  );
}
