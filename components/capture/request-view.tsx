"use client";

import type { CapturedRequestSummaryDto } from "@/lib/capture/contract";
import { Badge, ErrorNote, Spinner } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { formatBytes } from "@/components/ui/format";
import { CodeBlock, HeadersTable, prettyIfJson } from "@/components/ui/json";
import { useCapturedRequest } from "./hooks";
import { SignatureChecks } from "./signatures";

/** The opened request: its summary at once, then its headers and whole body, fetched for it alone. */
export function RequestView({
  binId,
  summary,
  destinationId,
}: {
  binId: string;
  summary: CapturedRequestSummaryDto;
  destinationId: string | null;
}) {
  const full = useCapturedRequest(binId, summary.id);
  const req = full.data;
  const query = summary.query ? [...new URLSearchParams(summary.query).entries()] : [];
  return (
    <section aria-label="Request details" className="space-y-5">
      <div>
        <div className="flex flex-wrap items-center gap-2">
          <Badge tone="indigo">{summary.method}</Badge>
          <code className="break-all font-mono text-sm text-slate-900">
            {summary.path}
            {summary.query ? `?${summary.query}` : ""}
          </code>
        </div>
        <p className="mt-1 text-xs text-slate-500">
          #{summary.id} ·{" "}
          <time dateTime={summary.receivedAt} suppressHydrationWarning>
            {new Date(summary.receivedAt).toLocaleString()}
          </time>{" "}
          · {formatBytes(summary.bodySize)}
          {summary.contentType ? ` · ${summary.contentType}` : ""}
          {summary.truncated ? " · body truncated to 1 MB" : ""}
        </p>
        <SignatureChecks binId={binId} requestId={summary.id} destinationId={destinationId} />
      </div>
      {full.isPending ? <Spinner label="Loading the request…" /> : null}
      <ErrorNote error={full.error} />
      {req ? (
        <>
          <div>
            <div className="mb-2 flex items-center justify-between">
              <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">
                Body{req.bodyEncoding === "base64" ? " (not UTF-8 text: shown as base64)" : ""}
              </h3>
              {req.body ? <CopyButton value={req.bodyEncoding === "utf8" ? prettyIfJson(req.body) : req.body} label="Copy body" /> : null}
            </div>
            <CodeBlock value={req.body} label="Request body" />
          </div>
          {query.length > 0 ? (
            <div>
              <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Query</h3>
              <HeadersTable headers={query} label="Query parameters" />
            </div>
          ) : null}
          <div>
            <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Headers</h3>
            <HeadersTable headers={req.headers} label="Request headers" />
          </div>
        </>
      ) : null}
    </section>
  );
}
