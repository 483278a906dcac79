"use client";

import { ShortValue } from "@/components/ui/short-url";
import Link from "next/link";
import type { AttemptDetailDto } from "@/lib/request-log/contract";
import { formatMs } from "@/components/ui/format";
import { CodeBlock, HeadersTable } from "@/components/ui/json";
import { OutcomeBadge, StatusBadge } from "@/components/log/attempt-bits";

/** The attempts of one test-send, inline: status, timing, response, and what was sent (h3s under the panel's h2, axe heading-order). */
export function TestResult({ attempts }: { attempts: AttemptDetailDto[] }) {
  return (
    // tabIndex -1: focus moves here when a test-send answers (test-send.tsx).
    <section aria-label="Test result" tabIndex={-1} className="mt-4 space-y-3 focus:outline-none">
      {attempts.map((a) => (
        <div key={a.id} className="rounded-md ring-1 ring-slate-200">
          <div className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-3 py-2 text-sm">
            <StatusBadge attempt={a} />
            <OutcomeBadge outcome={a.outcome} />
            <output className="tabular-nums text-slate-600" aria-label="Duration">
              {formatMs(a.durationMs)}
            </output>
            {/* Its own line on a phone, cut in the middle (never to "http://…"); beside the badges from sm up. */}
            <span
              data-testid="test-result-url"
              className="order-last min-w-0 basis-full font-mono text-xs text-slate-500 sm:order-none sm:basis-0 sm:flex-1"
            >
              <ShortValue value={a.sentTo ?? a.url} max={48} />
            </span>
            <Link
              href={`/log?view=attempts&messageId=${encodeURIComponent(a.messageId)}&attempt=${a.id}`}
              className="text-xs text-indigo-700 hover:underline"
            >
              In the log →
            </Link>
          </div>
          <div className="space-y-3 p-3">
            {a.errorText ? (
              <p className="text-sm text-red-700">
                {a.errorKind ? `${a.errorKind}: ` : ""}
                {a.errorText}
              </p>
            ) : null}
            <div>
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Response body</h3>
              <CodeBlock value={a.responseBody ?? ""} label="Response body" maxHeight="max-h-48" />
            </div>
            <details>
              <summary className="cursor-pointer text-xs text-indigo-700">Request and response headers, request body</summary>
              <div className="mt-2 grid gap-3 md:grid-cols-2">
                <div>
                  <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Request headers</h3>
                  <HeadersTable headers={a.requestHeaders} label="Request headers" />
                </div>
                <div>
                  <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Response headers</h3>
                  <HeadersTable headers={a.responseHeaders} label="Response headers" />
                </div>
              </div>
              <h3 className="mb-1 mt-3 text-xs font-semibold uppercase tracking-wide text-slate-500">Request body</h3>
              <CodeBlock value={a.requestBody ?? ""} label="Request body" maxHeight="max-h-48" />
            </details>
          </div>
        </div>
      ))}
    </section>
  );
}
