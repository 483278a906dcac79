"use client";

import { useEffect, useState } from "react";
import { MAX_HEADERS, MAX_URLS } from "@/lib/destinations/contract";
import { Button } from "@/components/ui/button";
import { FieldError, Input } from "@/components/ui/field";
import { useCreateCaptureBinMutation } from "@/components/capture/hooks";
import { ErrorNote } from "@/components/ui/card";
import { newHeaderRow, type HeaderRow } from "./form-state";
import { StoredValue } from "./write-only-field";

type Errors = Record<string, string[] | undefined>;

/**
 * Moves focus to the element with `id` once it is rendered: after "+ Add URL" the next keystrokes
 * belong in the new row, and after removing a row focus stays in the list instead of falling to the page.
 */
function useFocusAfterRender() {
  const [target, setTarget] = useState<string | null>(null);
  useEffect(() => {
    if (!target) return;
    document.getElementById(target)?.focus();
    setTarget(null);
  }, [target]);
  return setTarget;
}

/**
 * Up to 5 endpoint URLs; each row is labelled "URL n" and shows its own error (`urls.n`) and what
 * the last save warned about it (a private or loopback target, docs/webhooks.md#outbound-safety).
 */
export function UrlRows({
  urls,
  errors,
  warnings = {},
  onChange,
}: {
  urls: string[];
  errors: Errors;
  warnings?: Errors;
  onChange: (urls: string[]) => void;
}) {
  const focus = useFocusAfterRender();
  return (
    <fieldset className="min-w-0 space-y-2">
      <legend className="text-sm font-medium text-slate-700">Endpoint URLs</legend>
      {urls.map((u, i) => {
        const err = errors[`urls.${i}`]?.[0];
        const warning = warnings[`urls.${i}`]?.[0];
        const describedBy = [err ? `url-${i}-error` : null, warning ? `url-${i}-warning` : null].filter(Boolean).join(" ");
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a URL's position is its identity here (its label and field errors are "URL n", urls.n)
          <div key={i}>
            <div className="flex items-center gap-2">
              <label htmlFor={`url-${i}`} className="w-12 shrink-0 text-xs text-slate-500">
                URL {i + 1}
              </label>
              <Input
                id={`url-${i}`}
                type="url"
                placeholder="https://api.example.com/webhooks/eventrail"
                value={u}
                aria-invalid={!!err}
                aria-describedby={describedBy || undefined}
                data-warned={warning ? "true" : undefined}
                onChange={(e) => onChange(urls.map((x, j) => (j === i ? e.target.value : x)))}
                className="font-mono"
              />
              <Button
                variant="ghost"
                aria-label={`Remove URL ${i + 1}`}
                disabled={urls.length === 1}
                onClick={() => {
                  onChange(urls.filter((_, j) => j !== i));
                  focus(`url-${Math.max(0, i - 1)}`);
                }}
              >
                ✕
              </Button>
            </div>
            <FieldError id={`url-${i}-error`} message={err} className="mt-1 pl-14" />
            {warning ? (
              <p id={`url-${i}-warning`} className="mt-1 pl-14 text-xs text-amber-800">
                Saved, but: {warning}
              </p>
            ) : null}
          </div>
        );
      })}
      <FieldError id="urls-error" message={errors.urls?.[0]} />
      <div className="flex flex-wrap items-center gap-3 pl-14">
        <Button
          variant="secondary"
          disabled={urls.length >= MAX_URLS}
          onClick={() => {
            onChange([...urls, ""]);
            focus(`url-${urls.length}`);
          }}
        >
          + Add URL
        </Button>
        <UseCaptureUrl
          disabled={urls.every((u) => u.trim() !== "") && urls.length >= MAX_URLS}
          onCreated={(url) => {
            // The first empty row takes it, else a new row.
            const empty = urls.findIndex((u) => u.trim() === "");
            const at = empty === -1 ? urls.length : empty;
            onChange(empty === -1 ? [...urls, url] : urls.map((x, j) => (j === at ? url : x)));
            focus(`url-${at}`);
          }}
        />
        <span className="text-xs text-slate-500">
          {urls.length} of {MAX_URLS}
        </span>
      </div>
    </fieldset>
  );
}

/**
 * "Use a capture URL": makes a new capture URL (docs/dashboard.md#capture-urls) and puts it in the form,
 * so a destination can be tried before its real endpoint exists; its page shows every request live.
 */
function UseCaptureUrl({ disabled, onCreated }: { disabled: boolean; onCreated: (url: string) => void }) {
  const create = useCreateCaptureBinMutation();
  return (
    <>
      <Button
        variant="secondary"
        disabled={disabled || create.isPending}
        title="A capture URL accepts any request and shows it live: try the destination before your endpoint is ready"
        onClick={() => create.mutate(undefined, { onSuccess: (bin) => onCreated(bin.url) })}
      >
        {create.isPending ? "Creating…" : "Use a capture URL"}
      </Button>
      <ErrorNote error={create.error} />
    </>
  );
}

/**
 * Up to 5 static headers sent with every request (errors `headers.n.name` / `headers.n.value`). A
 * stored header's value is write-only: its row shows "set · ••••abcd" with Reveal and Replace, and
 * keeps the value unless replaced; ✕ removes the header.
 */
export function HeaderRows({
  headers,
  errors,
  onChange,
  reveal,
}: {
  headers: HeaderRow[];
  errors: Errors;
  onChange: (headers: HeaderRow[]) => void;
  reveal?: (name: string) => Promise<string>;
}) {
  const focus = useFocusAfterRender();
  const set = (i: number, patch: Partial<HeaderRow>) => onChange(headers.map((h, j) => (j === i ? { ...h, ...patch } : h)));
  return (
    <fieldset className="min-w-0 space-y-2">
      <legend className="text-sm font-medium text-slate-700">Custom headers</legend>
      {headers.length === 0 ? (
        <p className="text-xs text-slate-500">None. Add one to send, for example, an API key your endpoint expects.</p>
      ) : null}
      {headers.map((h, i) => {
        const nameErr = errors[`headers.${i}.name`]?.[0];
        const valueErr = errors[`headers.${i}.value`]?.[0];
        const errId = `header-${i}-error`;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a header's position is its identity here (its labels and field errors are "Header n", headers.n)
          <div key={i}>
            <div className="grid grid-cols-[minmax(0,1fr)_minmax(0,1.5fr)_auto] items-center gap-2">
              <Input
                id={`header-${i}-name`}
                aria-label={`Header ${i + 1} name`}
                placeholder="X-Api-Key"
                value={h.name}
                readOnly={h.action === "keep"}
                title={h.action === "keep" ? "Replace the value to rename this header" : undefined}
                aria-invalid={!!nameErr}
                aria-describedby={nameErr ? errId : undefined}
                onChange={(e) => set(i, { name: e.target.value })}
                className="font-mono read-only:bg-slate-50"
              />
              {h.action === "keep" ? (
                <StoredValue
                  id={`header-${i}`}
                  label={`Header ${i + 1} value`}
                  state={h}
                  reveal={reveal ? () => reveal(h.name) : undefined}
                >
                  <Button
                    variant="secondary"
                    aria-label={`Replace header ${i + 1} value`}
                    onClick={() => set(i, { action: "replace", value: "" })}
                  >
                    Replace
                  </Button>
                </StoredValue>
              ) : (
                <Input
                  id={`header-${i}-value`}
                  aria-label={`Header ${i + 1} value`}
                  placeholder="value"
                  value={h.value}
                  aria-invalid={!!valueErr}
                  aria-describedby={valueErr ? errId : undefined}
                  onChange={(e) => set(i, { value: e.target.value })}
                  className="font-mono"
                />
              )}
              <Button
                variant="ghost"
                aria-label={`Remove header ${i + 1}`}
                onClick={() => {
                  onChange(headers.filter((_, j) => j !== i));
                  focus(headers.length > 1 ? `header-${Math.max(0, i - 1)}-name` : "add-header");
                }}
              >
                ✕
              </Button>
            </div>
            <FieldError id={errId} message={nameErr ?? valueErr} className="mt-1" />
          </div>
        );
      })}
      <FieldError id="headers-error" message={errors.headers?.[0]} />
      <div className="flex flex-wrap items-center gap-3">
        <Button
          id="add-header"
          variant="secondary"
          disabled={headers.length >= MAX_HEADERS}
          onClick={() => {
            onChange([...headers, newHeaderRow()]);
            focus(`header-${headers.length}-name`);
          }}
        >
          + Add header
        </Button>
        <span className="text-xs text-slate-500">
          {headers.length} of {MAX_HEADERS} · Content-Type, User-Agent, X-Signature, the signing headers and connection-level headers
          (Connection, Transfer-Encoding, …) are set by Eventrail or the HTTP client. Values are write-only once saved.
        </span>
      </div>
    </fieldset>
  );
}
