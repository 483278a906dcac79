"use client";

import type { CapturedRequestDto } from "@/lib/capture/schemas";
import { Badge } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { formatBytes } from "@/components/ui/format";
import { CodeBlock, HeadersTable, prettyIfJson } from "@/components/ui/json";
import { VerdictBadge, useVerdicts, type Secrets } from "./signatures";

export function RequestView({ req, secrets }: { req: CapturedRequestDto; secrets: Secrets }) {
  const verdicts = useVerdicts(req, secrets);
  const query = req.query ? [...new URLSearchParams(req.query).entries()] : [];
  return (
    <section aria-label="Request details" className="space-y-5">
      <div>
        <div className="flex flex-wrap items-center gap-2">
          <Badge tone="indigo">{req.method}</Badge>
          <code className="break-all font-mono text-sm text-slate-900">{req.path}{req.query ? `?${req.query}` : ""}</code>
        </div>
        <p className="mt-1 text-xs text-slate-500">
          #{req.id} · {new Date(req.receivedAt).toLocaleString()} · {formatBytes(req.bodySize)}
          {req.truncated ? " · body truncated to 1 MB" : ""}
        </p>
        <div className="mt-3 flex flex-wrap gap-2" aria-label="Signature checks">
          <VerdictBadge name="X-Signature" verdict={verdicts?.x} />
          <VerdictBadge name="Standard Webhooks" verdict={verdicts?.standard} />
        </div>
        {verdicts && (verdicts.x.state === "invalid" || verdicts.x.state === "unverifiable") ? (
          <p className="mt-1 text-xs text-slate-500">X-Signature: {verdicts.x.detail}</p>
        ) : null}
        {verdicts && (verdicts.standard.state === "invalid" || verdicts.standard.state === "unverifiable") ? (
          <p className="mt-1 text-xs text-slate-500">Standard Webhooks: {verdicts.standard.detail}</p>
        ) : null}
      </div>
      <div>
        <div className="mb-2 flex items-center justify-between">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Body</h3>
          {req.body ? <CopyButton value={prettyIfJson(req.body)} label="Copy body" /> : null}
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
    </section>
  );
}
