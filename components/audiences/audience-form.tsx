"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { audienceConditionSchema, type Condition } from "@/lib/audiences/condition";
import { audiencePropertyName } from "@/lib/audiences/names";
import type { AudienceDto } from "@/lib/audiences/contract";
import { ApiError } from "@/components/data/api-client";
import { fieldErrorsFromIssues } from "@/lib/api/field-errors";
import { useFocusFirstInvalid } from "@/components/ui/use-focus-first-invalid";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote } from "@/components/ui/card";
import { Field, Input, inputClass } from "@/components/ui/field";
import { GroupEditor, type ConditionErrors } from "./condition-builder";
import { rootDraft, toCondition, type DraftGroup } from "./draft";
import { useDestinations } from "@/components/destinations/hooks";
import { useSources } from "@/components/sources/hooks";
import { useAudiencePreview, useCreateAudienceMutation, useUpdateAudienceMutation } from "./hooks";

const SCHEDULES: { label: string; minutes: number | null }[] = [
  { label: "Only when I click “Sync now”", minutes: null },
  { label: "Every 15 minutes", minutes: 15 },
  { label: "Every hour", minutes: 60 },
  { label: "Every 6 hours", minutes: 360 },
  { label: "Every day", minutes: 1440 },
];

/**
 * The builder's own check of the condition, with the API's schema. Counts the user typed (at least N
 * times, within D days) are judged as typed — "at least 0 times" is refused at once; an empty new row
 * is not called wrong until a first submit.
 */
function conditionErrorsToShow(parsed: ReturnType<typeof audienceConditionSchema.safeParse>, submitted: boolean): ConditionErrors {
  if (parsed.success) return {};
  const all = fieldErrorsFromIssues(parsed.error.issues);
  if (submitted) return all;
  return Object.fromEntries(Object.entries(all).filter(([k]) => /\.(atLeast|withinDays)$/.test(k)));
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

function Checklist({
  label,
  items,
  selected,
  onChange,
  empty,
}: {
  label: string;
  items: { id: string; name: string; note?: string }[];
  selected: string[];
  onChange: (ids: string[]) => void;
  empty: React.ReactNode;
}) {
  if (items.length === 0) return <p className="text-sm text-slate-500">{empty}</p>;
  return (
    <fieldset className="space-y-1.5">
      <legend className="sr-only">{label}</legend>
      {items.map((it) => (
        <label key={it.id} className="flex items-center gap-2 text-sm text-slate-700">
          <input
            type="checkbox"
            className="h-4 w-4 rounded border-slate-300 text-indigo-600"
            checked={selected.includes(it.id)}
            onChange={(e) => onChange(e.target.checked ? [...selected, it.id] : selected.filter((x) => x !== it.id))}
          />
          <bdi>{it.name}</bdi>
          {it.note ? <span className="text-xs text-slate-500">{it.note}</span> : null}
        </label>
      ))}
    </fieldset>
  );
}

/** The live member count of the condition being built. */
function Preview({ condition, sourceIds }: { condition: Condition | null; sourceIds: string[] }) {
  const debounced = useDebounced({ condition, sourceIds }, 400);
  const ready = debounced.condition !== null && debounced.sourceIds.length > 0;
  const preview = useAudiencePreview(debounced.condition, debounced.sourceIds);
  return (
    <Card className="p-4">
      <h2 className="text-sm font-semibold text-slate-900">Preview</h2>
      {!ready ? (
        <p className="mt-2 text-sm text-slate-500">
          {sourceIds.length === 0 ? "Pick a source to see how many users match." : "Complete every condition to see how many users match."}
        </p>
      ) : preview.isError ? (
        <div className="mt-2">
          <ErrorNote error={preview.error} />
        </div>
      ) : (
        <p className="mt-2 text-sm text-slate-600" aria-live="polite">
          <span data-testid="preview-count" className="text-2xl font-semibold text-slate-900">
            {preview.data ? preview.data.count.toLocaleString("en-US") : "…"}
          </span>{" "}
          {preview.data?.count === 1 ? "user matches" : "users match"} now
          {preview.isFetching ? <span className="ml-2 text-xs text-slate-500">updating…</span> : null}
        </p>
      )}
    </Card>
  );
}

export function AudienceForm({ audience }: { audience?: AudienceDto }) {
  const router = useRouter();
  const sources = useSources();
  const destinations = useDestinations();
  const [name, setName] = useState(audience?.name ?? "");
  const [sourceIds, setSourceIds] = useState<string[]>(audience?.sourceIds ?? []);
  const [destinationIds, setDestinationIds] = useState<string[]>(audience?.destinationIds ?? []);
  const [scheduleMinutes, setScheduleMinutes] = useState<number | null>(audience?.scheduleMinutes ?? null);
  const [draft, setDraft] = useState<DraftGroup>(() => rootDraft(audience?.condition ?? null));
  const [defaulted, setDefaulted] = useState(!!audience);

  // A new audience draws from every source until the user narrows it.
  useEffect(() => {
    if (!defaulted && sources.data) {
      setSourceIds(sources.data.map((s) => s.id));
      setDefaulted(true);
    }
  }, [defaulted, sources.data]);

  const parsedCondition = useMemo(() => audienceConditionSchema.safeParse(toCondition(draft)), [draft]);
  const condition = parsedCondition.success ? parsedCondition.data : null;
  const [submitted, setSubmitted] = useState(false);
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();

  const create = useCreateAudienceMutation();
  const update = useUpdateAudienceMutation();
  const save = audience ? update : create;
  const submit = () => {
    const body = { name, sourceIds, destinationIds, condition: toCondition(draft), scheduleMinutes };
    const onSuccess = (saved: AudienceDto) => router.push(`/audiences/${saved.id}`);
    if (audience) update.mutate({ id: audience.id, patch: body }, { onSuccess });
    else create.mutate(body, { onSuccess });
  };

  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const conditionErrors = conditionErrorsToShow(parsedCondition, submitted);
  for (const [k, v] of Object.entries(fields)) {
    if (k === "condition") conditionErrors._ = v;
    else if (k.startsWith("condition.")) conditionErrors[k.slice("condition.".length)] = v;
  }
  const property = audiencePropertyName(name);

  return (
    <form
      ref={formRef}
      noValidate
      className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]"
      onSubmit={(e) => {
        e.preventDefault();
        setSubmitted(true);
        // The builder refuses what the API would ("at least 0 times"): nothing is sent, focus goes to the first problem.
        if (parsedCondition.success) submit();
        else focusFirstInvalid();
      }}
    >
      <div className="min-w-0 space-y-6">
        <Card className="space-y-4 p-5">
          <Field
            label="Audience name"
            htmlFor="audience-name"
            error={fields.name?.[0]}
            hint={
              property ? (
                <>
                  Sent to destinations as the identify trait <code className="font-mono">{property}</code>: true for members, false when
                  they leave.
                </>
              ) : (
                "e.g. Premium Users"
              )
            }
          >
            <Input
              id="audience-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="Premium Users"
              autoFocus={!audience}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="space-y-1">
              <span className="block text-sm font-medium text-slate-700">Sources</span>
              <p className="text-xs text-slate-500" data-testid="audience-scope">
                Members are users with data in these sources. Traits come from their unified profile (every source); events count only calls
                from these sources.
              </p>
              <Checklist
                label="Sources"
                items={(sources.data ?? []).map((s) => ({ id: s.id, name: s.name }))}
                selected={sourceIds}
                onChange={setSourceIds}
                empty={
                  <>
                    No sources yet.{" "}
                    <Link className="text-indigo-700 underline" href="/sources">
                      Create one
                    </Link>
                    .
                  </>
                }
              />
              {fields.sourceIds ? <p className="text-xs text-red-600">{fields.sourceIds[0]}</p> : null}
            </div>
            <div className="space-y-1">
              <span className="block text-sm font-medium text-slate-700">Destinations</span>
              <p className="text-xs text-slate-500">Webhooks that receive the identify calls.</p>
              <Checklist
                label="Destinations"
                items={(destinations.data ?? []).map((d) => ({ id: d.id, name: d.name, note: d.enabled ? undefined : "(disabled)" }))}
                selected={destinationIds}
                onChange={setDestinationIds}
                empty={
                  <>
                    No destinations yet.{" "}
                    <Link className="text-indigo-700 underline" href="/destinations">
                      Add one
                    </Link>
                    .
                  </>
                }
              />
              {fields.destinationIds ? <p className="text-xs text-red-600">{fields.destinationIds[0]}</p> : null}
            </div>
          </div>
          <Field label="Sync schedule" htmlFor="audience-schedule" error={fields.scheduleMinutes?.[0]}>
            <select
              id="audience-schedule"
              className={inputClass}
              value={scheduleMinutes ?? ""}
              onChange={(e) => setScheduleMinutes(e.target.value === "" ? null : Number(e.target.value))}
            >
              {[
                ...SCHEDULES,
                ...(scheduleMinutes !== null && !SCHEDULES.some((s) => s.minutes === scheduleMinutes)
                  ? [{ label: `Every ${scheduleMinutes} minutes`, minutes: scheduleMinutes }]
                  : []),
              ].map((s) => (
                <option key={s.label} value={s.minutes ?? ""}>
                  {s.label}
                </option>
              ))}
            </select>
          </Field>
        </Card>
        <div>
          <h2 className="mb-2 text-sm font-semibold text-slate-900">Who is in it</h2>
          <GroupEditor group={draft} onChange={setDraft} errors={conditionErrors} />
        </div>
        {save.error && !Object.keys(fields).length ? <ErrorNote error={save.error} /> : null}
        {save.error instanceof ApiError && save.error.code === "validation_failed" ? (
          <ErrorNote error="Some fields need attention (marked above)." />
        ) : null}
        <div className="flex gap-2">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : audience ? "Save changes" : "Create audience"}
          </Button>
          <Link
            href={audience ? `/audiences/${audience.id}` : "/audiences"}
            className="inline-flex items-center rounded-md px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100"
          >
            Cancel
          </Link>
        </div>
      </div>
      <div className="space-y-4 lg:sticky lg:top-4 lg:self-start">
        <Preview condition={condition} sourceIds={sourceIds} />
        <p className="text-xs text-slate-500">
          {audience
            ? "Changes apply at the next sync: it sends only the users whose membership changed."
            : "Creating the audience starts its first sync: an identify with true for every member."}
        </p>
      </div>
    </form>
  );
}
