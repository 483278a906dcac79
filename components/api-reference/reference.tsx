import type { Endpoint } from "@/lib/api/endpoint";
import { ENDPOINTS_BY_FEATURE } from "@/lib/api/endpoints";
import { curlExample, requestExample } from "@/lib/openapi/examples";
import { Card, PageHeader } from "../ui/card";
import { ScrollBox } from "../ui/scroll-box";
import { CopyButton } from "../ui/copy-button";

/**
 * The API reference (docs/management-api.md#openapi), rendered on the server from the same endpoint
 * registry and zod schemas as /api/openapi.json: no script of its own, so the page's nonce CSP holds.
 */

const METHOD_STYLE: Record<Endpoint["method"], string> = {
  GET: "bg-sky-100 text-sky-900",
  POST: "bg-emerald-100 text-emerald-900",
  PUT: "bg-amber-100 text-amber-900",
  PATCH: "bg-amber-100 text-amber-900",
  DELETE: "bg-rose-100 text-rose-900",
};

const ACCESS_LABEL: Record<Endpoint["access"], string> = {
  public: "no authentication",
  viewer: "any member",
  admin: "admins and owners, full tokens",
  owner: "owners",
  account: "your own session",
  operator: "the operator's token",
};

function Operation({ id, ep }: { id: string; ep: Endpoint }) {
  const curl = curlExample(ep);
  const example = requestExample(ep);
  return (
    <li id={id} className="border-t border-slate-200 py-4 first:border-t-0">
      <h3 className="flex flex-wrap items-baseline gap-2 text-sm">
        <span className={`rounded px-1.5 py-0.5 font-mono text-xs font-semibold ${METHOD_STYLE[ep.method]}`}>{ep.method}</span>
        <code className="font-mono text-slate-900 [overflow-wrap:anywhere]">{ep.path}</code>
      </h3>
      <p className="mt-1 text-sm text-slate-700">{ep.summary}</p>
      <p className="mt-1 text-xs text-slate-600">
        Who may call it: {ACCESS_LABEL[ep.access]} · success: {ep.status ?? (ep.response ? 200 : 204)}
      </p>
      <details className="mt-2">
        <summary className="cursor-pointer text-sm font-medium text-slate-800">Request example</summary>
        {example !== undefined ? (
          <ScrollBox label={`Example body of ${ep.method} ${ep.path}`}>
            <pre className="mt-2 rounded bg-slate-50 p-3 font-mono text-xs text-slate-800">{JSON.stringify(example, null, 2)}</pre>
          </ScrollBox>
        ) : null}
        <ScrollBox label={`curl for ${ep.method} ${ep.path}`}>
          <pre className="mt-2 rounded bg-slate-50 p-3 font-mono text-xs text-slate-800">{curl}</pre>
        </ScrollBox>
        <div className="mt-2">
          <CopyButton value={curl} label="Copy curl" />
        </div>
      </details>
    </li>
  );
}

export function ApiReference() {
  const groups = Object.entries(ENDPOINTS_BY_FEATURE) as [string, Record<string, Endpoint>][];
  return (
    <div>
      <PageHeader
        title="API reference"
        description="Every Management API endpoint, generated from the schemas that validate requests. Authenticate with an API token from Settings (Authorization: Bearer …)."
        actions={
          <a className="text-sm font-medium text-indigo-700 underline" href="/api/openapi.json">
            OpenAPI 3.1 document (JSON)
          </a>
        }
      />
      <div className="space-y-6">
        {groups.map(([feature, endpoints]) => (
          <Card key={feature} className="p-4">
            <h2 className="text-base font-semibold capitalize text-slate-900">{feature}</h2>
            <ul className="mt-2">
              {Object.entries(endpoints).map(([key, ep]) => (
                <Operation key={key} id={`${feature.replace(/\W+/g, "-")}-${key}`} ep={ep} />
              ))}
            </ul>
          </Card>
        ))}
      </div>
    </div>
  );
}
