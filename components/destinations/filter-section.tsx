"use client";

import { useEffect, useState } from "react";
import { Badge, ErrorNote } from "@/components/ui/card";
import { errorId, FieldError, inputClass } from "@/components/ui/field";
import { plural } from "@/components/ui/format";
import { destinationFilterSchema, MAX_FILTER_EVENTS, RECEIVE_ALL, type DestinationFilter } from "@/lib/destinations/contract";
import { FILTER_TYPES } from "@/lib/destinations/filter-types";
import { ContentFilterFields } from "./content-filter-fields";
import { filterToInput, type FilterState } from "./form-state";
import { useFilterPreview } from "./hooks";

const EVENT_MODES = [
  ["all", "All track events"],
  ["include", "Only these events"],
  ["exclude", "All events except these"],
] as const;

/** The first error under a key or any of its entries (`filter.events.names.3` shows at the list). */
const firstError = (errors: Record<string, string[] | undefined>, key: string) =>
  Object.entries(errors).find(([k]) => k === key || k.startsWith(`${key}.`))?.[1]?.[0];

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

/** The filter as the API would take it, or null while the form's filter is not valid yet. */
function validFilter(f: FilterState): DestinationFilter | null {
  const parsed = destinationFilterSchema.safeParse(filterToInput(f) ?? RECEIVE_ALL);
  return parsed.success ? parsed.data : null;
}

/**
 * Which calls the destination receives (docs/routing.md#destination-filters): call types, and for
 * track calls all events, only the named ones or all but them; conditions, sampling and field lists
 * (content-filter-fields.tsx); with a preview of how many of its sources' recent calls would pass.
 */
export function FilterFields({
  filter,
  sourceIds,
  errors,
  onChange,
}: {
  filter: FilterState;
  sourceIds: string[];
  errors: Record<string, string[] | undefined>;
  onChange: (f: FilterState) => void;
}) {
  const typesError = firstError(errors, "filter.types");
  const namesError = firstError(errors, "filter.events.names") ?? firstError(errors, "filter.events.mode");
  const toggleType = (t: string, on: boolean) =>
    onChange({
      ...filter,
      types: on ? FILTER_TYPES.filter((x) => x === t || filter.types.includes(x)) : filter.types.filter((x) => x !== t),
    });
  return (
    <>
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Call types</legend>
        <div className="mt-2 flex flex-wrap gap-2">
          {FILTER_TYPES.map((t, i) => (
            <label
              key={t}
              className="flex items-center gap-2 rounded-md px-3 py-1.5 font-mono text-sm ring-1 ring-inset ring-slate-200 hover:bg-slate-50"
            >
              <input
                type="checkbox"
                checked={filter.types.includes(t)}
                aria-invalid={i === 0 && typesError ? true : undefined}
                aria-describedby={typesError ? errorId("dest-filter-types") : undefined}
                onChange={(e) => toggleType(t, e.target.checked)}
              />
              {t}
            </label>
          ))}
        </div>
        <FieldError id={errorId("dest-filter-types")} message={typesError} className="mt-1" />
      </fieldset>
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Track events</legend>
        <div className="mt-2 flex flex-wrap gap-x-4 gap-y-2">
          {EVENT_MODES.map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm text-slate-700">
              <input
                type="radio"
                name="dest-filter-event-mode"
                value={value}
                checked={filter.eventMode === value}
                onChange={() => onChange({ ...filter, eventMode: value })}
              />
              {label}
            </label>
          ))}
        </div>
        {filter.eventMode !== "all" ? (
          <div className="mt-3 space-y-1">
            <label htmlFor="dest-filter-events" className="block text-sm font-medium text-slate-700">
              {filter.eventMode === "include" ? "Events to receive" : "Events to leave out"}
            </label>
            <textarea
              id="dest-filter-events"
              rows={3}
              className={`${inputClass} font-mono`}
              value={filter.eventNames}
              placeholder={"Order Completed\nSigned Up"}
              aria-invalid={namesError ? true : undefined}
              aria-describedby={namesError ? errorId("dest-filter-events") : "dest-filter-events-hint"}
              onChange={(e) => onChange({ ...filter, eventNames: e.target.value })}
            />
            {namesError ? (
              <FieldError id={errorId("dest-filter-events")} message={namesError} />
            ) : (
              <p id="dest-filter-events-hint" className="text-xs text-slate-500">
                One event name per line, at most {MAX_FILTER_EVENTS}; names match exactly, capitals included.
              </p>
            )}
          </div>
        ) : null}
      </fieldset>
      <ContentFilterFields filter={filter} errors={errors} onChange={onChange} />
      <FilterPreview filter={filter} sourceIds={sourceIds} />
    </>
  );
}

function FilterPreview({ filter, sourceIds }: { filter: FilterState; sourceIds: string[] }) {
  const debounced = useDebounced({ filter: validFilter(filter), sourceIds }, 300);
  const preview = useFilterPreview(debounced.sourceIds, debounced.filter);
  let body: React.ReactNode;
  if (sourceIds.length === 0) body = "Connect a source to preview the filter against its recent calls.";
  else if (!validFilter(filter)) body = "Fix the filter to preview it.";
  else if (preview.isError) body = <ErrorNote error={preview.error} />;
  else if (!preview.data) body = "Counting recent calls…";
  else if (preview.data.considered === 0) body = "The connected sources have no calls yet to preview against.";
  else {
    const p = preview.data;
    body = (
      <>
        <span data-testid="filter-preview">
          <strong>{p.passed.toLocaleString("en-US")}</strong> of the last {plural(p.considered, "call")} of its sources would be sent here.
        </span>
        <span className="mt-2 flex flex-wrap gap-1">
          {p.byType.map((t) => (
            <Badge key={t.type} tone={t.passed === t.considered ? "green" : t.passed === 0 ? "slate" : "amber"}>
              {t.type} {t.passed}/{t.considered}
            </Badge>
          ))}
        </span>
        <LeftOut excluded={p.excluded} />
        {p.example ? (
          <details className="mt-2">
            <summary className="cursor-pointer text-xs font-medium text-slate-600">Body as sent, for the newest call that passes</summary>
            <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-white p-2 font-mono text-xs ring-1 ring-inset ring-slate-200">
              {JSON.stringify(p.example.sent, null, 2)}
            </pre>
          </details>
        ) : null}
      </>
    );
  }
  return (
    <div
      role="status"
      aria-label="Filter preview"
      className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700 ring-1 ring-inset ring-slate-200"
    >
      {body}
    </div>
  );
}

/** "Left out: 3 by conditions, 2 by sampling": each call under the first rule that left it out. */
function LeftOut({ excluded }: { excluded: { integrations: number; typeOrEvent: number; conditions: number; sampling: number } }) {
  const parts = [
    [excluded.typeOrEvent, "by type or event name"],
    [excluded.conditions, "by conditions"],
    [excluded.sampling, "by sampling"],
    [excluded.integrations, "by their integrations"],
  ].filter(([n]) => (n as number) > 0);
  if (parts.length === 0) return null;
  return <span className="mt-2 block text-xs text-slate-600">Left out: {parts.map(([n, why]) => `${n} ${why}`).join(", ")}.</span>;
}
