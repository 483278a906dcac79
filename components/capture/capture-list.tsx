"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CaptureBinDto } from "@/lib/capture/schemas";
import { CAPTURE_LIMITS } from "@/lib/capture/schemas";
import { api } from "@/lib/client/api";
import { Button } from "@/components/ui/button";
import { Badge, Card, EmptyState, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { TimeAgo, statusTone } from "@/components/ui/format";
import { captureKeys, fetchCaptureBins } from "./queries";

export function useCreateCaptureBin() {
  const qc = useQueryClient();
  const router = useRouter();
  return useMutation({
    mutationFn: () => api<CaptureBinDto>("/api/capture-bins", { method: "POST", body: {} }),
    onSuccess: async (bin) => {
      qc.setQueryData(captureKeys.detail(bin.id), bin);
      await qc.invalidateQueries({ queryKey: captureKeys.list() });
      router.push(`/capture/${bin.id}`);
    },
  });
}

export function CaptureList() {
  const bins = useQuery({ queryKey: captureKeys.list(), queryFn: ({ signal }) => fetchCaptureBins(signal), refetchInterval: 5_000 });
  const create = useCreateCaptureBin();
  const newButton = (label: string) => (
    <Button onClick={() => create.mutate()} disabled={create.isPending}>
      {create.isPending ? "Creating…" : label}
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Capture URLs"
        description={
          <>
            A capture URL accepts any request and shows it here live — point a destination or a test-send at it to see exactly what
            Eventrail sends. Each keeps its newest {CAPTURE_LIMITS.requestsPerBin} requests.
          </>
        }
        actions={bins.data?.length ? newButton("New capture URL") : null}
      />
      <ErrorNote error={create.error} />
      {bins.isPending ? (
        <Spinner />
      ) : bins.isError ? (
        <ErrorNote error={bins.error} />
      ) : bins.data.length === 0 ? (
        <EmptyState title="No capture URLs yet" action={newButton("Create a capture URL")}>
          Create one in a click, then send a test event to it from a destination, or curl it yourself.
        </EmptyState>
      ) : (
        <Card>
          <table className="w-full text-sm">
            <thead className="border-b border-slate-100 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th className="px-4 py-2 font-medium">Capture URL</th>
                <th className="px-4 py-2 font-medium">Responds</th>
                <th className="px-4 py-2 font-medium">Requests</th>
                <th className="px-4 py-2 font-medium">Last request</th>
                <th className="px-4 py-2"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {bins.data.map((b) => (
                <tr key={b.id} className="hover:bg-slate-50">
                  <td className="px-4 py-3">
                    <Link href={`/capture/${b.id}`} className="font-medium text-slate-900 hover:text-indigo-700">
                      {b.name || "Untitled capture URL"}
                    </Link>
                    <div className="font-mono text-xs text-slate-500">{b.url}</div>
                  </td>
                  <td className="px-4 py-3">
                    <Badge tone={statusTone(b.responseStatus)}>{b.responseStatus}</Badge>
                    {b.responseDelayMs ? <span className="ml-2 text-xs text-slate-500">after {b.responseDelayMs} ms</span> : null}
                  </td>
                  <td className="px-4 py-3 tabular-nums">{b.requestCount}</td>
                  <td className="px-4 py-3 text-slate-500">{b.lastRequestAt ? <TimeAgo iso={b.lastRequestAt} /> : "none yet"}</td>
                  <td className="px-4 py-3 text-right">
                    <CopyButton value={b.url} label="Copy URL" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </>
  );
}
