"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { CodeBlock } from "@/components/ui/json";
import { DeleteButton } from "@/components/ui/delete-button";
import { useDeleteSourceMutation, useSource, useUpdateSourceMutation } from "./hooks";
import { PreviousKeyNotice, RotateKeyButton } from "./key-rotation";
import { SourceHealthCard } from "./source-health";
import { useCan } from "@/components/layout/role";

export function SourceDetail({ id, children }: { id: string; children?: React.ReactNode }) {
  const router = useRouter();
  const source = useSource(id);
  const [revealed, setRevealed] = useState(false);
  const toggle = useUpdateSourceMutation();
  const remove = useDeleteSourceMutation();
  const canEdit = useCan("admin");

  if (source.isPending) return <Spinner />;
  if (source.isError) return <ErrorNote error={source.error} />;
  const s = source.data;
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  const masked = s.writeKey ? `${s.writeKey.slice(0, 6)}${"•".repeat(20)}` : "";
  // Shown with the key masked until Reveal; copied with the key itself, ready to run.
  const curlWith = (key: string) =>
    `curl ${origin}/v1/track -u '${key}:' -H 'content-type: application/json' \\\n  -d '{"userId":"user-1","event":"Order Completed","properties":{"total":42}}'`;
  const curl = curlWith(revealed && s.writeKey ? s.writeKey : masked);

  return (
    <>
      <PageHeader
        title={s.name}
        description={<>Source · created {new Date(s.createdAt).toLocaleString()}</>}
        actions={
          <>
            {canEdit ? null : <Badge tone="slate">Read-only</Badge>}
            <Badge tone={s.enabled ? "green" : "slate"}>{s.enabled ? "Enabled" : "Disabled"}</Badge>
            {canEdit ? (
              <Button variant="secondary" onClick={() => toggle.mutate({ id, patch: { enabled: !s.enabled } })} disabled={toggle.isPending}>
                {s.enabled ? "Disable" : "Enable"}
              </Button>
            ) : null}
            {canEdit ? (
              <DeleteButton
                title={`Delete source "${s.name}"?`}
                confirmLabel="Delete source"
                busy={remove.isPending}
                error={remove.error}
                onConfirm={() => remove.mutate(id, { onSuccess: () => router.push("/sources") })}
              >
                Its write key stops working at once.
              </DeleteButton>
            ) : null}
          </>
        }
      />
      <SourceHealthCard health={s.health} />
      {s.writeKey === null ? null : (
        <Card className="mb-6 p-5">
          <h2 className="text-sm font-semibold text-slate-900">Write key</h2>
          <p className="mt-1 text-sm text-slate-500">
            Send it as the HTTP Basic user name (empty password) or as <code>writeKey</code> in the body.
          </p>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <code
              data-testid="write-key"
              className="min-w-0 max-w-full rounded-md bg-slate-100 px-3 py-1.5 font-mono text-sm [overflow-wrap:anywhere]"
            >
              {revealed ? s.writeKey : masked}
            </code>
            <Button variant="secondary" onClick={() => setRevealed((r) => !r)}>
              {revealed ? "Hide" : "Reveal"}
            </Button>
            <CopyButton value={s.writeKey} label="Copy write key" />
            {canEdit ? <RotateKeyButton source={s} /> : null}
          </div>
          {s.previousWriteKey ? <PreviousKeyNotice previous={s.previousWriteKey} /> : null}
          <ErrorNote error={toggle.error} />
          <div className="mt-5 flex items-center justify-between gap-2">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Try it</h3>
            <CopyButton value={curlWith(s.writeKey)} label="Copy curl command" />
          </div>
          <div className="mt-2">
            <CodeBlock value={curl} label="curl command" maxHeight="max-h-48" plain />
          </div>
        </Card>
      )}
      {children}
    </>
  );
}
