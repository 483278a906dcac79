"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { destinationInputSchema, type DestinationDto } from "@/lib/destinations/schemas";
import { ApiError, api } from "@/lib/client/api";
import { fieldErrorsFromIssues } from "@/lib/errors";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { fetchSources, sourceKeys } from "@/components/sources/queries";
import { HeaderRows, UrlRows } from "./form-rows";
import { describeMinutes, emptyForm, formFromDestination, formToInput, generateSharedSecret, generateStandardSecret, type FormState } from "./form-state";
import { destinationKeys } from "./queries";
import { SecretField } from "./secret-field";

function Section({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Card className="grid gap-4 p-5 md:grid-cols-[14rem_minmax(0,1fr)]">
      <div>
        <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
        {description ? <p className="mt-1 text-xs text-slate-500">{description}</p> : null}
      </div>
      <div className="min-w-0 space-y-4">{children}</div>
    </Card>
  );
}

/**
 * Create or edit a Webhooks destination. Validated with the API's own zod schema before sending,
 * so field errors appear inline at once; the server's 422 fields land in the same places.
 */
export function DestinationForm({ destination }: { destination?: DestinationDto }) {
  const qc = useQueryClient();
  const router = useRouter();
  const [form, setForm] = useState<FormState>(() => (destination ? formFromDestination(destination) : emptyForm()));
  const [errors, setErrors] = useState<Record<string, string[] | undefined>>({});
  const [submitted, setSubmitted] = useState(false);
  const sources = useQuery({ queryKey: sourceKeys.list(), queryFn: ({ signal }) => fetchSources(signal) });

  const validate = (f: FormState) => {
    const parsed = destinationInputSchema.safeParse(formToInput(f));
    const e = parsed.success ? {} : fieldErrorsFromIssues(parsed.error.issues);
    setErrors(e);
    return parsed;
  };
  // After a first submit, errors follow every keystroke, so a fixed field clears at once.
  const update = (patch: Partial<FormState>) => {
    const next = { ...form, ...patch };
    setForm(next);
    if (submitted) validate(next);
  };

  const save = useMutation({
    mutationFn: (input: unknown) =>
      destination
        ? api<DestinationDto>(`/api/destinations/${destination.id}`, { method: "PATCH", body: input })
        : api<DestinationDto>("/api/destinations", { method: "POST", body: input }),
    onSuccess: async (d) => {
      qc.setQueryData(destinationKeys.detail(d.id), d);
      await qc.invalidateQueries({ queryKey: destinationKeys.list() });
      router.push(`/destinations/${d.id}`);
    },
    onError: (e) => {
      if (e instanceof ApiError && e.fields) setErrors(e.fields);
    },
  });

  const errorCount = Object.keys(errors).length;
  const fieldError = (k: string) => errors[k]?.[0];

  return (
    <form
      noValidate
      className="space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        setSubmitted(true);
        const parsed = validate(form);
        if (parsed.success) save.mutate(formToInput(form));
      }}
    >
      {errorCount > 0 ? (
        <div role="alert" className="rounded-md bg-red-50 px-4 py-3 text-sm text-red-700 ring-1 ring-red-200">
          {errorCount === 1 ? "One field needs" : `${errorCount} fields need`} attention before this destination can be saved.
        </div>
      ) : null}

      <Section title="General" description="A name you will recognise in the log and the overview.">
        <Field label="Name" htmlFor="dest-name" error={fieldError("name")}>
          <Input id="dest-name" value={form.name} placeholder="e.g. Orders service" aria-invalid={!!fieldError("name")} onChange={(e) => update({ name: e.target.value })} />
        </Field>
        <div className="flex items-center gap-3">
          <button
            type="button"
            role="switch"
            aria-checked={form.enabled}
            aria-labelledby="dest-enabled-label"
            onClick={() => update({ enabled: !form.enabled })}
            className={`relative inline-flex h-6 w-11 shrink-0 rounded-full transition-colors ${form.enabled ? "bg-indigo-600" : "bg-slate-300"}`}
          >
            <span className={`inline-block h-5 w-5 translate-y-0.5 rounded-full bg-white shadow transition-transform ${form.enabled ? "translate-x-5.5" : "translate-x-0.5"}`} />
          </button>
          <span id="dest-enabled-label" className="text-sm text-slate-700">Enabled</span>
          <span className="text-xs text-slate-500">{form.enabled ? "Events are delivered as they arrive." : "Nothing is sent while disabled."}</span>
        </div>
      </Section>

      <Section
        title="Endpoints"
        description="Each event is POSTed as JSON to these URLs. With several URLs, choose whether one success is enough or every URL must succeed."
      >
        <UrlRows urls={form.urls} errors={errors} onChange={(urls) => update({ urls })} />
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Delivery mode</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {([
              ["any", "Any URL", "Sent to all URLs at once; done when one answers 2xx (the others are not retried)."],
              ["every", "Every URL", "Each URL is retried on its own until it answers 2xx."],
            ] as const).map(([value, title, text]) => (
              <label key={value} className={`flex cursor-pointer gap-2 rounded-md p-3 ring-1 ring-inset ${form.mode === value ? "bg-indigo-50 ring-indigo-300" : "ring-slate-200 hover:bg-slate-50"}`}>
                <input type="radio" name="mode" value={value} checked={form.mode === value} onChange={() => update({ mode: value })} className="mt-0.5" />
                <span>
                  <span className="block text-sm font-medium text-slate-900">{title}</span>
                  <span className="block text-xs text-slate-500">{text}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      </Section>

      <Section title="Headers" description="Static headers added to every request.">
        <HeaderRows headers={form.headers} errors={errors} onChange={(headers) => update({ headers })} />
      </Section>

      <Section title="Signing" description="Let your endpoint check that a request really comes from Eventrail.">
        <SecretField
          id="dest-secret"
          label="Shared secret"
          value={form.sharedSecret}
          error={fieldError("sharedSecret")}
          hint="When set, each request carries X-Signature: the hex HMAC-SHA1 of the body with this secret. Leave empty for no signature."
          placeholder="optional"
          onChange={(sharedSecret) => update({ sharedSecret })}
          generate={generateSharedSecret}
        />
        <div className="rounded-md p-3 ring-1 ring-inset ring-slate-200">
          <label className="flex items-start gap-2">
            <input
              type="checkbox"
              className="mt-0.5"
              checked={form.standardWebhooks}
              onChange={(e) => update({ standardWebhooks: e.target.checked, standardSecret: e.target.checked && !form.standardSecret ? generateStandardSecret() : form.standardSecret })}
            />
            <span>
              <span className="block text-sm font-medium text-slate-900">Standard Webhooks signatures</span>
              <span className="block text-xs text-slate-500">Adds webhook-id, webhook-timestamp and webhook-signature (standardwebhooks.com), verifiable with the official libraries.</span>
            </span>
          </label>
          {form.standardWebhooks ? (
            <div className="mt-3">
              <SecretField
                id="dest-standard-secret"
                label="Signing secret"
                value={form.standardSecret}
                error={fieldError("standardSecret")}
                hint="whsec_ followed by base64."
                onChange={(standardSecret) => update({ standardSecret })}
                generate={generateStandardSecret}
              />
            </div>
          ) : null}
        </div>
      </Section>

      <Section title="Retries" description="Failed attempts (timeouts, 5xx, 408, 429, connection errors) are retried with exponential backoff until this window ends.">
        <Field label="Retry window (minutes)" htmlFor="dest-retry" error={fieldError("retryWindowMinutes")} hint={describeMinutes(form.retryWindowMinutes) ? `Retries for ${describeMinutes(form.retryWindowMinutes)} after the first attempt.` : undefined}>
          <Input
            id="dest-retry"
            inputMode="numeric"
            className="max-w-40"
            value={form.retryWindowMinutes}
            aria-invalid={!!fieldError("retryWindowMinutes")}
            onChange={(e) => update({ retryWindowMinutes: e.target.value })}
          />
        </Field>
      </Section>

      <Section title="Sources" description="Calls from the checked sources are sent here.">
        {sources.isPending ? (
          <p className="text-sm text-slate-500">Loading sources…</p>
        ) : sources.isError ? (
          <ErrorNote error={sources.error} />
        ) : sources.data.length === 0 ? (
          <p className="text-sm text-slate-500">
            No sources yet. <Link href="/sources" className="text-indigo-700 underline">Create a source</Link> to receive calls; you can still save and test-send.
          </p>
        ) : (
          <fieldset>
            <legend className="sr-only">Connected sources</legend>
            <div className="grid gap-2 sm:grid-cols-2">
              {sources.data.map((s) => (
                <label key={s.id} className="flex items-center gap-2 rounded-md px-3 py-2 text-sm ring-1 ring-inset ring-slate-200 hover:bg-slate-50">
                  <input
                    type="checkbox"
                    checked={form.sourceIds.includes(s.id)}
                    onChange={(e) => update({ sourceIds: e.target.checked ? [...form.sourceIds, s.id] : form.sourceIds.filter((x) => x !== s.id) })}
                  />
                  {s.name}
                  {!s.enabled ? <span className="text-xs text-slate-400">(disabled)</span> : null}
                </label>
              ))}
            </div>
          </fieldset>
        )}
        {fieldError("sourceIds") ? <p role="alert" className="text-xs text-red-600">{fieldError("sourceIds")}</p> : null}
      </Section>

      {save.error && !(save.error instanceof ApiError && save.error.fields) ? <ErrorNote error={save.error} /> : null}
      <div className="sticky bottom-0 -mx-2 flex items-center justify-end gap-2 border-t border-slate-200 bg-slate-50/95 px-2 py-3 backdrop-blur">
        <Link href={destination ? `/destinations/${destination.id}` : "/destinations"} className="rounded-md px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100">
          Cancel
        </Link>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : destination ? "Save changes" : "Create destination"}
        </Button>
      </div>
    </form>
  );
}
