"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { CAPTURE_LIMITS } from "@/lib/capture/schemas";
import { api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { statusTone } from "@/components/ui/format";
import { TestSendPanel } from "@/components/destinations/test-send";
import { CaptureSettings } from "./capture-settings";
import { captureKeys, fetchCaptureBin } from "./queries";
import { RequestsPane } from "./requests-pane";
import type { Secrets } from "./signatures";

/** Secrets to verify with stay in this browser (localStorage), never on the server. */
function useSecrets(binId: string): [Secrets, (s: Secrets) => void] {
  const key = `eventrail.capture.${binId}.secrets`;
  const [secrets, setSecrets] = useState<Secrets>({ shared: "", standard: "" });
  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(key) ?? "null");
      if (saved) setSecrets({ shared: saved.shared ?? "", standard: saved.standard ?? "" });
    } catch {}
  }, [key]);
  return [
    secrets,
    (s) => {
      setSecrets(s);
      localStorage.setItem(key, JSON.stringify(s));
    },
  ];
}

export function CaptureDetail({ id }: { id: string }) {
  const qc = useQueryClient();
  const router = useRouter();
  const bin = useQuery({ queryKey: captureKeys.detail(id), queryFn: ({ signal }) => fetchCaptureBin(id, signal) });
  const [secrets, setSecrets] = useSecrets(id);
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => api(`/api/capture-bins/${id}`, { method: "DELETE" }),
    onSuccess: async () => {
      qc.removeQueries({ queryKey: captureKeys.detail(id) });
      await qc.invalidateQueries({ queryKey: captureKeys.list() });
      router.push("/capture");
    },
  });

  if (bin.isPending) return <Spinner />;
  if (bin.isError) return <ErrorNote error={bin.error} />;
  const b = bin.data;
  const curl = `curl -X POST '${b.url}' \\\n  -H 'content-type: application/json' \\\n  -d '{"hello":"world"}'`;

  return (
    <>
      <div className="mb-2 text-sm"><Link href="/capture" className="text-slate-500 hover:text-slate-800">← Capture URLs</Link></div>
      <PageHeader
        title={b.name || "Capture URL"}
        description={<>Accepts any method on this URL and any path under it. Requests appear below as they arrive.</>}
        actions={
          <>
            <Badge tone={statusTone(b.responseStatus)}>Responds {b.responseStatus}{b.responseDelayMs ? ` after ${b.responseDelayMs} ms` : ""}</Badge>
            <Button variant="danger" onClick={() => setConfirming(true)}>Delete</Button>
          </>
        }
      />
      <ConfirmDialog
        open={confirming}
        title="Delete this capture URL?"
        confirmLabel="Delete capture URL"
        tone="danger"
        busy={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate()}
      >
        Its {b.requestCount} captured request{b.requestCount === 1 ? "" : "s"} are deleted and the URL answers 404 from then on.
        <ErrorNote error={remove.error} />
      </ConfirmDialog>

      <Card className="mb-6 p-5">
        <div className="flex flex-wrap items-center gap-2">
          <code data-testid="capture-url" className="min-w-0 flex-1 truncate rounded-md bg-slate-100 px-3 py-2 font-mono text-sm">{b.url}</code>
          <CopyButton value={b.url} label="Copy URL" />
        </div>
        <ul className="mt-3 flex flex-wrap gap-x-6 gap-y-1 text-xs text-slate-500" aria-label="Limits">
          <li>Keeps the newest {CAPTURE_LIMITS.requestsPerBin} requests</li>
          <li>Stores bodies up to {CAPTURE_LIMITS.bodyBytes / 1024 / 1024} MB (the rest is dropped and marked truncated)</li>
        </ul>
        <details className="mt-3">
          <summary className="cursor-pointer text-sm text-indigo-700">Try it with curl</summary>
          <pre className="mt-2 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100">{curl}</pre>
        </details>
      </Card>

      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-6">
          <RequestsPane binId={id} url={b.url} secrets={secrets} />
        </div>
        <aside className="space-y-6">
          <Card className="p-5">
            <h2 className="mb-3 text-sm font-semibold text-slate-900">Response</h2>
            <CaptureSettings bin={b} />
          </Card>
          <Card className="p-5">
            <h2 className="text-sm font-semibold text-slate-900">Verify signatures</h2>
            <p className="mt-1 text-xs text-slate-500">Checked in this browser; the secrets are kept only here.</p>
            <div className="mt-3 space-y-3">
              <Field label="Shared secret (X-Signature)" htmlFor="verify-shared" hint="HMAC-SHA1 of the body, lowercase hex.">
                <Input id="verify-shared" type="password" autoComplete="off" value={secrets.shared} onChange={(e) => setSecrets({ ...secrets, shared: e.target.value })} />
              </Field>
              <Field label="Standard Webhooks secret" htmlFor="verify-standard" hint="whsec_…; checks webhook-signature.">
                <Input id="verify-standard" type="password" autoComplete="off" value={secrets.standard} onChange={(e) => setSecrets({ ...secrets, standard: e.target.value })} />
              </Field>
            </div>
          </Card>
          <TestSendPanel captureUrl={b.url} />
        </aside>
      </div>
    </>
  );
}
