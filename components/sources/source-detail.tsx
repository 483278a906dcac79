"use client";

import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { SourceDto } from "@/lib/sources/schemas";
import { api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { fetchSource, sourceKeys } from "./queries";

export function SourceDetail({ id, children }: { id: string; children?: React.ReactNode }) {
  const qc = useQueryClient();
  const router = useRouter();
  const source = useQuery({ queryKey: sourceKeys.detail(id), queryFn: ({ signal }) => fetchSource(id, signal) });
  const [revealed, setRevealed] = useState(false);
  const onChanged = (s: SourceDto) => {
    qc.setQueryData(sourceKeys.detail(id), s);
    return qc.invalidateQueries({ queryKey: sourceKeys.list() });
  };
  const rotate = useMutation({ mutationFn: () => api<SourceDto>(`/api/sources/${id}/rotate-key`, { method: "POST" }), onSuccess: onChanged });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api<SourceDto>(`/api/sources/${id}`, { method: "PATCH", body: { enabled } }),
    onSuccess: onChanged,
  });
  const remove = useMutation({
    mutationFn: () => api(`/api/sources/${id}`, { method: "DELETE" }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: sourceKeys.all });
      router.push("/sources");
    },
  });

  if (source.isPending) return <Spinner />;
  if (source.isError) return <ErrorNote error={source.error} />;
  const s = source.data;
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  const curl = `curl ${origin}/v1/track -u '${revealed ? s.writeKey : "<write key>"}:' -H 'content-type: application/json' \\\n  -d '{"userId":"user-1","event":"Order Completed","properties":{"total":42}}'`;

  return (
    <>
      <PageHeader
        title={s.name}
        description={<>Source · created {new Date(s.createdAt).toLocaleString()}</>}
        actions={
          <>
            <Badge tone={s.enabled ? "green" : "slate"}>{s.enabled ? "Enabled" : "Disabled"}</Badge>
            <Button variant="secondary" onClick={() => toggle.mutate(!s.enabled)} disabled={toggle.isPending}>
              {s.enabled ? "Disable" : "Enable"}
            </Button>
            <Button
              variant="danger"
              onClick={() => {
                if (confirm(`Delete source "${s.name}"? Its write key stops working at once.`)) remove.mutate();
              }}
            >
              Delete
            </Button>
          </>
        }
      />
      <Card className="mb-6 p-5">
        <h2 className="text-sm font-semibold text-slate-900">Write key</h2>
        <p className="mt-1 text-sm text-slate-500">
          Send it as the HTTP Basic user name (empty password) or as <code>writeKey</code> in the body.
        </p>
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <code data-testid="write-key" className="rounded-md bg-slate-100 px-3 py-1.5 font-mono text-sm">
            {revealed ? s.writeKey : `${s.writeKey.slice(0, 6)}${"•".repeat(20)}`}
          </code>
          <Button variant="secondary" onClick={() => setRevealed((r) => !r)}>
            {revealed ? "Hide" : "Reveal"}
          </Button>
          <CopyButton value={s.writeKey} label="Copy write key" />
          <Button
            variant="secondary"
            disabled={rotate.isPending}
            onClick={() => {
              if (confirm("Rotate the write key? The current key stops working immediately.")) rotate.mutate();
            }}
          >
            {rotate.isPending ? "Rotating…" : "Rotate"}
          </Button>
        </div>
        <ErrorNote error={rotate.error ?? toggle.error ?? remove.error} />
        <h3 className="mt-5 text-xs font-semibold uppercase tracking-wide text-slate-500">Try it</h3>
        <pre className="mt-2 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100">{curl}</pre>
      </Card>
      {children}
    </>
  );
}
