"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { CAPTURE_LIMITS } from "@/lib/capture/limits";
import { Badge, Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { CodeBlock } from "@/components/ui/json";
import { DeleteButton } from "@/components/ui/delete-button";
import { Field, inputClass } from "@/components/ui/field";
import { useDestinations } from "@/components/destinations/hooks";
import { statusTone } from "@/components/ui/format";
import { TestSendPanel } from "@/components/destinations/test-send";
import { CaptureSettings } from "./capture-settings";
import { useCaptureBin, useDeleteCaptureBinMutation } from "./hooks";
import { RequestsPane } from "./requests-pane";
import { useCan } from "@/components/layout/role";

/** The destination whose secrets the page checks signatures against; its id (never a secret) is remembered in this browser. */
function useCheckedDestination(binId: string): [string | null, (id: string | null) => void] {
  const key = `eventrail.capture.${binId}.destination`;
  const [id, setId] = useState<string | null>(null);
  useEffect(() => {
    setId(localStorage.getItem(key));
  }, [key]);
  return [
    id,
    (next) => {
      setId(next);
      if (next) localStorage.setItem(key, next);
      else localStorage.removeItem(key);
    },
  ];
}

export function CaptureDetail({ id }: { id: string }) {
  const canEdit = useCan("admin");
  const router = useRouter();
  const bin = useCaptureBin(id);
  const [destinationId, setDestinationId] = useCheckedDestination(id);
  const destinations = useDestinations();
  // A remembered destination that has since been deleted is no choice at all.
  const checkedId = destinations.data?.some((d) => d.id === destinationId) ? destinationId : null;
  const remove = useDeleteCaptureBinMutation();

  if (bin.isPending) return <Spinner />;
  if (bin.isError) return <ErrorNote error={bin.error} />;
  const b = bin.data;
  const curl = `curl -X POST '${b.url}' \\\n  -H 'content-type: application/json' \\\n  -d '{"hello":"world"}'`;

  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/capture" className="text-slate-500 hover:text-slate-800">
          ← Capture URLs
        </Link>
      </div>
      <PageHeader
        title={b.name || "Capture URL"}
        description={<>Accepts any method on this URL and any path under it. Requests appear below as they arrive.</>}
        actions={
          <>
            <Badge tone={statusTone(b.responseStatus)}>
              Responds {b.responseStatus}
              {b.responseDelayMs ? ` after ${b.responseDelayMs} ms` : ""}
            </Badge>
            {canEdit ? (
              <DeleteButton
                title="Delete this capture URL?"
                confirmLabel="Delete capture URL"
                busy={remove.isPending}
                error={remove.error}
                onConfirm={() => remove.mutate(id, { onSuccess: () => router.push("/capture") })}
              >
                Its captured requests ({b.requestCount.toLocaleString("en-US")}) are deleted and the URL answers 404 from then on.
              </DeleteButton>
            ) : null}
          </>
        }
      />

      <Card className="mb-6 p-5">
        <div className="flex flex-wrap items-center gap-2">
          <code
            data-testid="capture-url"
            className="min-w-0 flex-1 basis-64 rounded-md bg-slate-100 px-3 py-2 font-mono text-sm [overflow-wrap:anywhere]"
          >
            {b.url}
          </code>
          <CopyButton value={b.url} label="Copy URL" />
        </div>
        <ul className="mt-3 flex flex-wrap gap-x-6 gap-y-1 text-xs text-slate-500" aria-label="Limits">
          <li>Keeps the newest {CAPTURE_LIMITS.requestsPerBin} requests</li>
          <li>Stores bodies up to {CAPTURE_LIMITS.bodyBytes / 1024 / 1024} MB, as received (the rest is dropped and marked truncated)</li>
          <li>
            Keeps at most {CAPTURE_LIMITS.binBytes / 1024 / 1024} MB of bodies here and {CAPTURE_LIMITS.workspaceBytes / 1024 / 1024} MB
            across the workspace's capture URLs; past that the oldest requests are dropped
          </li>
        </ul>
        <details className="mt-3">
          <summary className="cursor-pointer text-sm text-indigo-700">Try it with curl</summary>
          <div className="mt-2">
            <CodeBlock value={curl} label="curl command" maxHeight="max-h-48" plain />
          </div>
        </details>
      </Card>

      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-6">
          <RequestsPane binId={id} url={b.url} destinationId={checkedId} />
        </div>
        <aside className="min-w-0 space-y-6">
          <Card className="p-5">
            <h2 className="mb-3 text-sm font-semibold text-slate-900">Response</h2>
            {canEdit ? <CaptureSettings bin={b} /> : <p className="text-sm text-slate-600">Responds {b.responseStatus}.</p>}
          </Card>
          <Card className="p-5">
            <h2 className="text-sm font-semibold text-slate-900">Verify signatures</h2>
            <p className="mt-1 text-xs text-slate-500">
              Each request is checked by the server against the destination that sent it, or the one you choose, with its shared secret and
              Standard Webhooks secret; the secrets never reach this page.
            </p>
            <div className="mt-3">
              <Field label="Check signatures against" htmlFor="verify-destination">
                <select
                  id="verify-destination"
                  className={inputClass}
                  value={checkedId ?? ""}
                  onChange={(e) => setDestinationId(e.target.value || null)}
                >
                  <option value="">The destination that sent it</option>
                  {destinations.data?.map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.name}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
          </Card>
          {canEdit ? <TestSendPanel captureUrl={b.url} /> : null}
        </aside>
      </div>
    </>
  );
}
