"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { CAPTURE_LIMITS } from "@/lib/capture/limits";
import { Button } from "@/components/ui/button";
import { Badge, EmptyState, ErrorNote, PageHeader } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { TimeAgo, statusTone } from "@/components/ui/format";
import { ListTable } from "@/components/ui/list-table";
import { useCaptureBins, useCreateCaptureBinMutation } from "./hooks";
import { useCan } from "@/components/layout/role";

export function CaptureList() {
  const router = useRouter();
  const bins = useCaptureBins({ live: true });
  const create = useCreateCaptureBinMutation();
  const canEdit = useCan("admin");
  const newButton = (label: string) => (
    <Button onClick={() => create.mutate(undefined, { onSuccess: (bin) => router.push(`/capture/${bin.id}`) })} disabled={create.isPending}>
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
        actions={canEdit && bins.data?.length ? newButton("New capture URL") : null}
      />
      <ErrorNote error={create.error} />
      <ListTable
        query={bins}
        rowKey={(b) => b.id}
        empty={
          <EmptyState title="No capture URLs yet" action={canEdit ? newButton("Create a capture URL") : null}>
            Create one in a click, then send a test event to it from a destination, or curl it yourself.
          </EmptyState>
        }
        columns={[
          {
            header: "Capture URL",
            cell: (b) => (
              <>
                <Link href={`/capture/${b.id}`} className="font-medium text-slate-900 hover:text-indigo-700">
                  <bdi>{b.name || "Untitled capture URL"}</bdi>
                </Link>
                <div className="font-mono text-xs text-slate-500 [overflow-wrap:anywhere]">{b.url}</div>
              </>
            ),
          },
          {
            header: "Responds",
            cell: (b) => (
              <>
                <Badge tone={statusTone(b.responseStatus)}>{b.responseStatus}</Badge>
                {b.responseDelayMs ? <span className="ml-2 text-xs text-slate-500">after {b.responseDelayMs} ms</span> : null}
              </>
            ),
          },
          { header: "Requests", className: "tabular-nums", cell: (b) => b.requestCount },
          {
            header: "Last request",
            className: "text-slate-500",
            cell: (b) => (b.lastRequestAt ? <TimeAgo iso={b.lastRequestAt} /> : "none yet"),
          },
          { header: <span className="sr-only">Actions</span>, align: "right", cell: (b) => <CopyButton value={b.url} label="Copy URL" /> },
        ]}
      />
    </>
  );
}
