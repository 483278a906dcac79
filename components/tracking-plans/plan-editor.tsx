"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { useCan } from "@/components/layout/role";
import { useSources } from "@/components/sources/hooks";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote, PageHeader, Spinner } from "@/components/ui/card";
import { ChoiceGroup } from "@/components/ui/choice-group";
import { DeleteButton } from "@/components/ui/delete-button";
import { Field, FieldError, errorId, inputClass } from "@/components/ui/field";
import { PLAN_TYPES, type TrackingPlanDto, type TrackingPlanRule } from "@/lib/tracking-plans/contract";
import {
  fetchExport,
  useCreateTrackingPlanMutation,
  useDeleteTrackingPlanMutation,
  useSchemaCheck,
  useTrackingPlan,
  useUpdateTrackingPlanMutation,
} from "./hooks";
import { PlanPreview } from "./plan-preview";
import { ViolationsPanel } from "./violations-panel";

type RuleDraft = { key: number; type: TrackingPlanRule["type"]; event: string; description?: string; schemaText: string };
type Draft = {
  name: string;
  violations: "flag" | "block";
  unplanned: "allow" | "flag" | "block";
  sourceIds: string[];
  rules: RuleDraft[];
};

let nextKey = 1;
const NEW_SCHEMA = '{\n  "type": "object",\n  "properties": {},\n  "required": []\n}';
const toDraft = (p: TrackingPlanDto | null): Draft => ({
  name: p?.name ?? "",
  violations: p?.violations ?? "flag",
  unplanned: p?.unplanned ?? "allow",
  sourceIds: p?.sourceIds ?? [],
  rules: (p?.rules ?? []).map((r) => ({
    key: nextKey++,
    type: r.type,
    event: r.event ?? "",
    description: r.description,
    schemaText: JSON.stringify(r.schema, null, 2),
  })),
});

/** The rules as the API takes them; a schema that is not JSON is sent as text, for the API's field error. */
const toRules = (rules: RuleDraft[]) =>
  rules.map((r) => {
    let schema: unknown = r.schemaText;
    try {
      schema = JSON.parse(r.schemaText);
    } catch {}
    const named = r.type === "track" || r.type === "page" || r.type === "screen";
    return {
      type: r.type,
      event: named && r.event.trim() !== "" ? r.event.trim() : null,
      ...(r.description ? { description: r.description } : {}),
      schema: schema as Record<string, unknown>,
    };
  });

export function EditPlan({ id }: { id: string }) {
  const plan = useTrackingPlan(id);
  if (plan.isPending) return <Spinner />;
  if (plan.isError) return <ErrorNote error={plan.error} />;
  return <PlanEditor plan={plan.data} />;
}

/**
 * A tracking plan's editor (docs/tracking-plans.md): its events, each with a JSON Schema checked by
 * the server's compiler as it is typed, the two modes and the connected sources.
 */
export function PlanEditor({ plan = null }: { plan?: TrackingPlanDto | null }) {
  const router = useRouter();
  const canEdit = useCan("admin");
  const sources = useSources();
  const create = useCreateTrackingPlanMutation();
  const update = useUpdateTrackingPlanMutation();
  const remove = useDeleteTrackingPlanMutation();
  const [draft, setDraft] = useState<Draft>(() => toDraft(plan));
  const [saved, setSaved] = useState(false);
  const lastEvent = useRef<HTMLInputElement | null>(null);
  const save = plan ? update : create;
  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const fieldError = (k: string) => fields[k]?.[0];

  const set = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const setRule = (key: number, patch: Partial<RuleDraft>) =>
    set({ rules: draft.rules.map((r) => (r.key === key ? { ...r, ...patch } : r)) });
  const addRule = () => {
    set({ rules: [...draft.rules, { key: nextKey++, type: "track", event: "", schemaText: NEW_SCHEMA }] });
    // The new rule's event field, once rendered.
    setTimeout(() => lastEvent.current?.focus(), 0);
  };

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const body = {
      name: draft.name,
      violations: draft.violations,
      unplanned: draft.unplanned,
      sourceIds: draft.sourceIds,
      rules: toRules(draft.rules),
    };
    if (plan) update.mutate({ id: plan.id, patch: body }, { onSuccess: () => setSaved(true) });
    else create.mutate(body, { onSuccess: (p) => router.push(`/tracking-plans/${p.id}`) });
  };

  const download = async () => {
    if (!plan) return;
    const exported = await fetchExport(plan.id);
    const url = URL.createObjectURL(new Blob([JSON.stringify(exported, null, 2)], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${plan.name.replace(/[^\w.-]+/g, "-")}.tracking-plan.json`;
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <>
      <PageHeader
        title={plan ? plan.name : "New tracking plan"}
        description={plan ? `Version ${plan.version}. Changes apply from the next call of each connected source.` : undefined}
        actions={
          plan ? (
            <>
              <Button variant="secondary" onClick={download}>
                Export (Segment format)
              </Button>
              {canEdit ? (
                <DeleteButton
                  title={`Delete "${plan.name}"?`}
                  confirmLabel="Delete plan"
                  busy={remove.isPending}
                  error={remove.error}
                  onConfirm={() => remove.mutate(plan.id, { onSuccess: () => router.push("/tracking-plans") })}
                >
                  Its sources&apos; calls are no longer checked. Violations already recorded stay with their calls.
                </DeleteButton>
              ) : null}
            </>
          ) : null
        }
      />
      {plan ? <ViolationsPanel planId={plan.id} /> : null}
      <form onSubmit={submit} className="space-y-6" aria-label="Tracking plan">
        <Card className="space-y-4 p-4">
          <Field label="Name" htmlFor="plan-name" error={fieldError("name")}>
            <input id="plan-name" value={draft.name} onChange={(e) => set({ name: e.target.value })} className={inputClass} />
          </Field>
          <div className="flex flex-wrap gap-6">
            <ChoiceGroup
              label="A call that breaks its schema"
              labelVisible
              value={draft.violations}
              onChange={(violations) => set({ violations })}
              options={[
                { value: "flag", label: "Flag (deliver)" },
                { value: "block", label: "Block (don't deliver)" },
              ]}
            />
            <ChoiceGroup
              label="A track event not in the plan"
              labelVisible
              value={draft.unplanned}
              onChange={(unplanned) => set({ unplanned })}
              options={[
                { value: "allow", label: "Allow" },
                { value: "flag", label: "Flag" },
                { value: "block", label: "Block" },
              ]}
            />
          </div>
          <fieldset>
            <legend className="text-sm font-medium text-slate-700">Connected sources</legend>
            <p className="text-xs text-slate-500">A source has one plan at most: checking it here moves it from its current plan.</p>
            {sources.isPending ? <Spinner /> : null}
            <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
              {(sources.data ?? []).map((s) => (
                <li key={s.id}>
                  <label className="flex items-center gap-2 text-sm text-slate-700">
                    <input
                      type="checkbox"
                      checked={draft.sourceIds.includes(s.id)}
                      onChange={(e) =>
                        set({ sourceIds: e.target.checked ? [...draft.sourceIds, s.id] : draft.sourceIds.filter((x) => x !== s.id) })
                      }
                    />
                    <bdi>{s.name}</bdi>
                  </label>
                </li>
              ))}
            </ul>
            <FieldError id="plan-sources-error" message={Object.entries(fields).find(([k]) => k.startsWith("sourceIds"))?.[1][0]} />
          </fieldset>
        </Card>

        <section aria-labelledby="rules-heading" className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="rules-heading" className="text-base font-semibold text-slate-900">
              Events ({draft.rules.length})
            </h2>
            <Button variant="secondary" onClick={addRule}>
              Add an event
            </Button>
          </div>
          {draft.rules.length === 0 ? <p className="text-sm text-slate-500">No events yet: every call passes unchecked.</p> : null}
          <ol className="space-y-3">
            {draft.rules.map((r, i) => (
              <li key={r.key}>
                <RuleEditor
                  index={i}
                  rule={r}
                  eventRef={i === draft.rules.length - 1 ? lastEvent : undefined}
                  errors={{ event: fieldError(`rules.${i}.event`), schema: fieldError(`rules.${i}.schema`) }}
                  onChange={(patch) => setRule(r.key, patch)}
                  onRemove={() => set({ rules: draft.rules.filter((x) => x.key !== r.key) })}
                />
              </li>
            ))}
          </ol>
        </section>

        <PlanPreview rules={toRules(draft.rules)} violations={draft.violations} unplanned={draft.unplanned} sourceIds={draft.sourceIds} />

        {save.error && !(save.error instanceof ApiError && save.error.fields) ? <ErrorNote error={save.error} /> : null}
        {save.error instanceof ApiError && save.error.fields ? (
          <p role="alert" className="text-sm text-red-700">
            {save.error.message}: see the fields marked above.
          </p>
        ) : null}
        {canEdit ? (
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? "Saving…" : plan ? "Save as a new version" : "Create plan"}
            </Button>
            {saved ? (
              <span role="status" className="text-sm text-emerald-700">
                Saved
              </span>
            ) : null}
          </div>
        ) : null}
      </form>
    </>
  );
}

function RuleEditor({
  index,
  rule,
  errors,
  eventRef,
  onChange,
  onRemove,
}: {
  index: number;
  rule: RuleDraft;
  errors: { event?: string; schema?: string };
  eventRef?: React.Ref<HTMLInputElement>;
  onChange: (patch: Partial<RuleDraft>) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const check = useSchemaCheck(rule.schemaText);
  const named = rule.type !== "identify" && rule.type !== "group";
  const schemaError = errors.schema ?? (check.state === "invalid" ? (check.problem ?? undefined) : undefined);
  const label = `${rule.type}${named && rule.event ? ` ${rule.event}` : ""}`;
  return (
    <Card className="p-4">
      <fieldset className="space-y-3">
        <legend className="sr-only">
          Event {index + 1}: {label}
        </legend>
        <div className="flex flex-wrap items-end gap-3">
          <div className="space-y-1">
            <label htmlFor={`${id}-type`} className="block text-sm font-medium text-slate-700">
              Call type
            </label>
            <select
              id={`${id}-type`}
              value={rule.type}
              onChange={(e) => onChange({ type: e.target.value as RuleDraft["type"] })}
              className={`${inputClass} w-32`}
            >
              {PLAN_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          {named ? (
            <div className="min-w-48 flex-1 space-y-1">
              <label htmlFor={`${id}-event`} className="block text-sm font-medium text-slate-700">
                {rule.type === "track" ? "Event name" : "Name (empty: any name without its own rule)"}
              </label>
              <input
                id={`${id}-event`}
                ref={eventRef}
                value={rule.event}
                onChange={(e) => onChange({ event: e.target.value })}
                aria-invalid={errors.event ? true : undefined}
                aria-describedby={errors.event ? errorId(`${id}-event`) : undefined}
                className={inputClass}
              />
              <FieldError id={errorId(`${id}-event`)} message={errors.event} />
            </div>
          ) : (
            <p className="flex-1 text-sm text-slate-500">Checks every {rule.type} call&apos;s traits.</p>
          )}
          <Button variant="ghost" onClick={onRemove} aria-label={`Remove event ${index + 1} (${label})`}>
            Remove
          </Button>
        </div>
        <div className="space-y-1">
          <label htmlFor={`${id}-schema`} className="block text-sm font-medium text-slate-700">
            JSON Schema of its {named ? "properties" : "traits"}
          </label>
          <textarea
            id={`${id}-schema`}
            rows={Math.min(16, Math.max(5, rule.schemaText.split("\n").length))}
            spellCheck={false}
            value={rule.schemaText}
            onChange={(e) => onChange({ schemaText: e.target.value })}
            aria-invalid={schemaError ? true : undefined}
            aria-describedby={schemaError ? errorId(`${id}-schema`) : `${id}-schema-state`}
            className={`${inputClass} font-mono text-xs`}
          />
          {schemaError ? (
            <FieldError id={errorId(`${id}-schema`)} message={schemaError} />
          ) : (
            <p id={`${id}-schema-state`} className="text-xs text-slate-500" aria-live="polite">
              {check.state === "checking" ? "Checking…" : "Valid JSON Schema"}
            </p>
          )}
        </div>
      </fieldset>
    </Card>
  );
}
