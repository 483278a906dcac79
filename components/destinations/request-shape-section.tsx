"use client";

import { useQuery } from "@tanstack/react-query";
import { destinationRoutes } from "@/lib/destinations/routes";
import { useEffect, useState } from "react";
import { call } from "@/components/data/api-client";
import { ErrorNote } from "@/components/ui/card";
import { errorId, FieldError, hintId, inputClass } from "@/components/ui/field";
import { mappingPreviewSchema, type MappingPreviewInput } from "@/lib/destinations/contract";
import { METHODS, type Method, type NumberForm } from "@/lib/webhooks/request-shape";
import { mappingFromText, type FormState } from "./form-state";

type Errors = Record<string, string[] | undefined>;

/** The first error at `mapping` or inside it, with where inside: "at email.@if: …". */
function mappingError(errors: Errors): string | undefined {
  const hit = Object.entries(errors).find(([k]) => k === "mapping" || k.startsWith("mapping."));
  if (!hit?.[1]?.[0]) return undefined;
  return hit[0] === "mapping" ? hit[1][0] : `At ${hit[0].slice("mapping.".length)}: ${hit[1][0]}`;
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  const json = JSON.stringify(value);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the serialised value, so a new object with the same content does not restart the wait
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [json, ms]);
  return v;
}

/**
 * Method and body mapping (docs/request-shape.md): a section a user can ignore (POST and the
 * default body), with a preview of the requests the sources' recent calls would make.
 */
export function RequestShapeFields({
  form,
  errors,
  onChange,
}: {
  form: FormState;
  errors: Errors;
  onChange: (p: Partial<FormState>) => void;
}) {
  const mError = mappingError(errors);
  return (
    <>
      <div className="space-y-1">
        <label htmlFor="dest-method" className="block text-sm font-medium text-slate-700">
          Method
        </label>
        <select
          id="dest-method"
          className={`${inputClass} max-w-40`}
          value={form.method}
          aria-invalid={errors.method ? true : undefined}
          aria-describedby={errors.method ? errorId("dest-method") : undefined}
          onChange={(e) => onChange({ method: e.target.value as Method })}
        >
          {METHODS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <FieldError id={errorId("dest-method")} message={errors.method?.[0]} />
      </div>
      <div className="space-y-1">
        <label htmlFor="dest-mapping" className="block text-sm font-medium text-slate-700">
          Body mapping <span className="font-normal text-slate-500">(optional)</span>
        </label>
        <textarea
          id="dest-mapping"
          rows={6}
          spellCheck={false}
          className={`${inputClass} font-mono text-xs`}
          value={form.mappingText}
          placeholder={'{"@path": "$."}'}
          aria-invalid={mError ? true : undefined}
          aria-describedby={mError ? errorId("dest-mapping") : hintId("dest-mapping")}
          onChange={(e) => onChange({ mappingText: e.target.value })}
        />
        {mError ? (
          <FieldError id={errorId("dest-mapping")} message={mError} />
        ) : (
          <p id={hintId("dest-mapping")} className="text-xs text-slate-500">
            Paste the Data field of a Segment Webhooks (Actions) mapping: @path, @template, @if, @arrayPath and literals, over the event as
            received ($.properties, $.traits, $.context…). Empty sends the default body. URLs may hold {"{{userId}}"}-style templates in
            their path and query.
          </p>
        )}
      </div>
      <div className="space-y-1">
        <label htmlFor="dest-numbers" className="block text-sm font-medium text-slate-700">
          Numbers
        </label>
        <select
          id="dest-numbers"
          className={`${inputClass} max-w-md`}
          value={form.numbers}
          aria-describedby={hintId("dest-numbers")}
          onChange={(e) => onChange({ numbers: e.target.value as NumberForm })}
        >
          <option value="canonical">As JavaScript writes them (default)</option>
          <option value="exact">Exact digits</option>
        </select>
        <p id={hintId("dest-numbers")} className="text-xs text-slate-500">
          {form.numbers === "exact"
            ? "Integers beyond 2^53 go out with every digit the client sent. Verify signatures over the raw body: re-serialising it in JavaScript changes those digits."
            : "Integers beyond 2^53 go out as JavaScript reads them, as Segment sends them, so the signature recipe of Segment's Webhooks destination verifies every body. The request log keeps the digits."}
        </p>
      </div>
      <RequestPreview form={form} />
    </>
  );
}

/** What the preview endpoint takes from the form, or null while something in it is not valid yet. */
function previewInput(form: FormState): MappingPreviewInput | null {
  const parsed = mappingPreviewSchema.safeParse({
    sourceIds: form.sourceIds,
    urls: form.urls,
    method: form.method,
    mapping: mappingFromText(form.mappingText),
    numbers: form.numbers,
    headers: form.headers.filter((h) => h.name.trim() !== "").map((h) => ({ name: h.name })),
    limit: 3,
  });
  return parsed.success ? parsed.data : null;
}

function RequestPreview({ form }: { form: FormState }) {
  const input = useDebounced(previewInput(form), 400);
  const preview = useQuery({
    queryKey: ["destinations", "mapping-preview", input],
    queryFn: ({ signal }) => call(destinationRoutes.mappingPreview, { body: input!, signal }),
    enabled: input !== null && input.sourceIds.length > 0,
    staleTime: 10_000,
  });
  let body: React.ReactNode;
  if (form.sourceIds.length === 0) body = "Connect a source to preview the requests its recent calls would make.";
  else if (!previewInput(form)) body = "Fix the URLs and the mapping to preview the requests.";
  else if (preview.isError) body = <ErrorNote error={preview.error} />;
  else if (!preview.data) body = "Rendering recent calls…";
  else if (preview.data.requests.length === 0) body = "The connected sources have no calls yet to preview against.";
  else
    body = (
      <ol className="space-y-3" data-testid="request-preview">
        {preview.data.requests.map((r) => (
          <li key={r.messageId} className="min-w-0 space-y-1">
            <p className="text-xs text-slate-500">
              {r.type}
              {r.event ? ` “${r.event}”` : ""} · {r.messageId}
            </p>
            {r.urls.map((u) => (
              <p key={u.url} className="font-mono text-xs break-all">
                {u.sendTo ? (
                  <>
                    <strong>{r.method}</strong> {u.sendTo}
                  </>
                ) : (
                  <span className="text-red-700">
                    Not sent to {u.url}: {u.error}
                  </span>
                )}
              </p>
            ))}
            <p className="font-mono text-xs break-all text-slate-500">
              {Object.entries(r.headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join(" · ")}
            </p>
            {r.body !== null ? (
              <pre className="max-h-48 overflow-auto rounded bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all ring-1 ring-inset ring-slate-200">
                {r.body}
              </pre>
            ) : null}
          </li>
        ))}
      </ol>
    );
  return (
    <section
      aria-label="Request preview"
      className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700 ring-1 ring-inset ring-slate-200"
    >
      <h3 className="mb-2 text-xs font-semibold text-slate-900">
        Preview: the requests the last calls would make (signatures added when sent)
      </h3>
      <div role="status">{body}</div>
    </section>
  );
}
