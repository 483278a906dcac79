"use client";

import { errorId, FieldError, inputClass } from "@/components/ui/field";
import { MAX_FIELD_LIST } from "@/lib/routing/field-lists";
import type { FilterState } from "./form-state";

/**
 * The parts of a filter that look inside a call (docs/routing.md#conditions, #sampling,
 * #field-lists): conditions as JSON in the audience condition language, a sampling percentage, and
 * the drop and allow lists, one path per line. Errors come keyed as the API keys them
 * (`filter.where.all.0.op`) and show under the field they belong to, with the place inside the JSON.
 */

const CONDITION_EXAMPLE = `{"all": [
  {"field": "properties.order.total", "op": "gt", "value": 100},
  {"field": "context.page.path", "op": "starts_with", "value": "/checkout"}
]}`;

/** Every error under `key`, with where inside it (`all.0.value: …`) when it is deeper. */
function errorsUnder(errors: Record<string, string[] | undefined>, key: string): string | undefined {
  const lines: string[] = [];
  for (const [k, messages] of Object.entries(errors)) {
    if (k !== key && !k.startsWith(`${key}.`)) continue;
    const at = k.slice(key.length + 1);
    for (const m of messages ?? []) lines.push(at ? `${at}: ${m}` : m);
  }
  return lines.length ? lines.join(" · ") : undefined;
}

function Area({
  id,
  label,
  hint,
  error,
  value,
  rows,
  placeholder,
  onChange,
}: {
  id: string;
  label: string;
  hint: string;
  error: string | undefined;
  value: string;
  rows: number;
  placeholder: string;
  onChange: (v: string) => void;
}) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <textarea
        id={id}
        rows={rows}
        spellCheck={false}
        className={`${inputClass} font-mono`}
        value={value}
        placeholder={placeholder}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${errorId(id)} ${id}-hint` : `${id}-hint`}
        onChange={(e) => onChange(e.target.value)}
      />
      <FieldError id={errorId(id)} message={error} />
      <p id={`${id}-hint`} className="text-xs text-slate-500">
        {hint}
      </p>
    </div>
  );
}

export function ContentFilterFields({
  filter,
  errors,
  onChange,
}: {
  filter: FilterState;
  errors: Record<string, string[] | undefined>;
  onChange: (f: FilterState) => void;
}) {
  const sampleError = errorsUnder(errors, "filter.samplePercent");
  return (
    <>
      <Area
        id="dest-filter-where"
        label="Conditions (JSON, optional)"
        hint='Fields by path in properties, traits, context or the top level; operators equals, not_equals, in, exists, not_exists, contains, starts_with, gt, gte, lt, lte; groups {"all": […]} and {"any": […]}. Leave blank for none.'
        error={errorsUnder(errors, "filter.where")}
        value={filter.where}
        rows={filter.where.split("\n").length > 3 ? 8 : 4}
        placeholder={CONDITION_EXAMPLE}
        onChange={(where) => onChange({ ...filter, where })}
      />
      <div className="space-y-1">
        <label htmlFor="dest-filter-sample" className="block text-sm font-medium text-slate-700">
          Sample (% of the calls that pass)
        </label>
        <input
          id="dest-filter-sample"
          type="number"
          inputMode="decimal"
          min={0.01}
          max={100}
          step={0.01}
          className={`${inputClass} max-w-[10rem]`}
          value={filter.samplePercent}
          aria-invalid={sampleError ? true : undefined}
          aria-describedby={sampleError ? `${errorId("dest-filter-sample")} dest-filter-sample-hint` : "dest-filter-sample-hint"}
          onChange={(e) => onChange({ ...filter, samplePercent: e.target.value })}
        />
        <FieldError id={errorId("dest-filter-sample")} message={sampleError} />
        <p id="dest-filter-sample-hint" className="text-xs text-slate-500">
          Chosen by messageId, so the same call is chosen again when it is sent or replayed again. 100 sends all.
        </p>
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <Area
          id="dest-filter-drop"
          label="Drop fields"
          hint={`One path per line (context.ip), at most ${MAX_FIELD_LIST}; removed before the body is signed.`}
          error={errorsUnder(errors, "filter.drop")}
          value={filter.drop}
          rows={3}
          placeholder={"context.ip\ntraits.email"}
          onChange={(drop) => onChange({ ...filter, drop })}
        />
        <Area
          id="dest-filter-allow"
          label="Allow only these fields"
          hint="Paths inside properties, traits or context; each object named keeps only its listed fields."
          error={errorsUnder(errors, "filter.allow")}
          value={filter.allow}
          rows={3}
          placeholder={"properties.total\nproperties.currency"}
          onChange={(allow) => onChange({ ...filter, allow })}
        />
      </div>
    </>
  );
}
