"use client";

import { MAX_HEADERS, MAX_URLS } from "@/lib/destinations/schemas";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/field";

type Errors = Record<string, string[] | undefined>;

function RowError({ id, message }: { id: string; message?: string }) {
  return message ? <p id={id} role="alert" className="mt-1 text-xs text-red-600">{message}</p> : null;
}

/** Up to 5 endpoint URLs; each row is labelled "URL n" and shows its own error (`urls.n`). */
export function UrlRows({ urls, errors, onChange }: { urls: string[]; errors: Errors; onChange: (urls: string[]) => void }) {
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-700">Endpoint URLs</legend>
      {urls.map((u, i) => {
        const err = errors[`urls.${i}`]?.[0];
        return (
          <div key={i}>
            <div className="flex items-center gap-2">
              <label htmlFor={`url-${i}`} className="w-12 shrink-0 text-xs text-slate-500">URL {i + 1}</label>
              <Input
                id={`url-${i}`}
                type="url"
                placeholder="https://api.example.com/webhooks/eventrail"
                value={u}
                aria-invalid={!!err}
                aria-describedby={err ? `url-${i}-error` : undefined}
                onChange={(e) => onChange(urls.map((x, j) => (j === i ? e.target.value : x)))}
                className="font-mono"
              />
              <Button variant="ghost" aria-label={`Remove URL ${i + 1}`} disabled={urls.length === 1} onClick={() => onChange(urls.filter((_, j) => j !== i))}>
                ✕
              </Button>
            </div>
            <div className="pl-14"><RowError id={`url-${i}-error`} message={err} /></div>
          </div>
        );
      })}
      <RowError id="urls-error" message={errors.urls?.[0]} />
      <div className="flex items-center gap-3 pl-14">
        <Button variant="secondary" disabled={urls.length >= MAX_URLS} onClick={() => onChange([...urls, ""])}>+ Add URL</Button>
        <span className="text-xs text-slate-500">{urls.length} of {MAX_URLS}</span>
      </div>
    </fieldset>
  );
}

/** Up to 5 static headers sent with every request (errors `headers.n.name` / `headers.n.value`). */
export function HeaderRows({
  headers,
  errors,
  onChange,
}: {
  headers: { name: string; value: string }[];
  errors: Errors;
  onChange: (headers: { name: string; value: string }[]) => void;
}) {
  const set = (i: number, patch: Partial<{ name: string; value: string }>) => onChange(headers.map((h, j) => (j === i ? { ...h, ...patch } : h)));
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-700">Custom headers</legend>
      {headers.length === 0 ? <p className="text-xs text-slate-500">None. Add one to send, for example, an API key your endpoint expects.</p> : null}
      {headers.map((h, i) => {
        const nameErr = errors[`headers.${i}.name`]?.[0];
        const valueErr = errors[`headers.${i}.value`]?.[0];
        return (
          <div key={i}>
            <div className="grid grid-cols-[1fr_1.5fr_auto] items-center gap-2">
              <Input
                aria-label={`Header ${i + 1} name`}
                placeholder="X-Api-Key"
                value={h.name}
                aria-invalid={!!nameErr}
                onChange={(e) => set(i, { name: e.target.value })}
                className="font-mono"
              />
              <Input
                aria-label={`Header ${i + 1} value`}
                placeholder="value"
                value={h.value}
                aria-invalid={!!valueErr}
                onChange={(e) => set(i, { value: e.target.value })}
                className="font-mono"
              />
              <Button variant="ghost" aria-label={`Remove header ${i + 1}`} onClick={() => onChange(headers.filter((_, j) => j !== i))}>✕</Button>
            </div>
            <RowError id={`header-${i}-error`} message={nameErr ?? valueErr} />
          </div>
        );
      })}
      <RowError id="headers-error" message={errors.headers?.[0]} />
      <div className="flex items-center gap-3">
        <Button variant="secondary" disabled={headers.length >= MAX_HEADERS} onClick={() => onChange([...headers, { name: "", value: "" }])}>+ Add header</Button>
        <span className="text-xs text-slate-500">{headers.length} of {MAX_HEADERS} · Content-Type, User-Agent, X-Signature and the signing headers are set by Eventrail.</span>
      </div>
    </fieldset>
  );
}
