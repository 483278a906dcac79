"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import {
  DESTINATION_LIMITS,
  destinationInputSchema,
  destinationPatchSchema,
  type DestinationDto,
  type SavedDestinationDto,
} from "@/lib/destinations/contract";
import { ApiError } from "@/components/data/api-client";
import { useFocusFirstInvalid } from "@/components/ui/use-focus-first-invalid";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { FilterFields } from "./filter-section";
import { HeaderRows, UrlRows } from "./form-rows";
import { RateLimitFields } from "./rate-limit-section";
import { OrderingFields } from "./ordering-section";
import { AuthFields } from "./auth-section";
import { TlsFields } from "./tls-section";
import { RequestShapeFields } from "./request-shape-section";
import { BatchFields } from "./batch-section";
import { SourcePicker } from "./source-picker";
import type { FormSection } from "./configuration-card";
import { describeMinutes } from "./describe-shape";
import {
  emptyForm,
  formFromDestination,
  formToInput,
  generateSharedSecret,
  generateStandardSecret,
  validateForm,
  warningsByField,
  type FormState,
} from "./form-state";
import { revealDestinationValue, useCreateDestinationMutation, useUpdateDestinationMutation } from "./hooks";
import { WriteOnlyField } from "./write-only-field";

/**
 * One part of the form, its card's `id` the anchor the destination page's "Change" links open
 * (configuration-card.tsx's FormSection): /destinations/:id/edit#batching lands on Batching, focused.
 */
function Section({
  id,
  title,
  description,
  children,
}: {
  id: FormSection | "general";
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card
      id={id}
      className="grid scroll-mt-4 gap-4 p-5 md:grid-cols-[14rem_minmax(0,1fr)] data-arrived:ring-2 data-arrived:ring-indigo-400"
    >
      <div>
        <h2
          id={`${id}-heading`}
          tabIndex={-1}
          className="text-sm font-semibold text-slate-900 focus:outline-none focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          {title}
        </h2>
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
  const router = useRouter();
  const [form, setForm] = useState<FormState>(() => (destination ? formFromDestination(destination) : emptyForm()));
  const [errors, setErrors] = useState<Record<string, string[] | undefined>>({});
  const [submitted, setSubmitted] = useState(false);
  // Saving with no source connected is confirmed first: such a destination receives nothing.
  const [confirmNoSource, setConfirmNoSource] = useState(false);

  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();
  // Opened from a "Change" link on the destination page (/edit#batching): that section, scrolled to
  // and its heading focused, so keyboard and screen-reader users start where they meant to.
  useEffect(() => {
    const section = window.location.hash.slice(1);
    const heading = section ? document.getElementById(`${section}-heading`) : null;
    if (!heading) return;
    // Outlined so the eye finds it too: a mark React leaves alone, as the form never re-renders it away.
    document.getElementById(section)?.setAttribute("data-arrived", "");
    heading.scrollIntoView({ block: "start" });
    heading.focus({ preventScroll: true });
  }, []);
  // After a save with warnings, focus lands on the first URL warned about, which names its warning.
  const [warnedRef, focusWarned] = useFocusFirstInvalid<HTMLDivElement>('[data-warned="true"]');
  const reveal = destination
    ? (which: Parameters<typeof revealDestinationValue>[1]) => revealDestinationValue(destination.id, which)
    : undefined;
  // Every error at once; editing validates as the PATCH does (stored secrets and header values may stay as they are).
  const validate = (f: FormState) => {
    const { valid, errors: e } = validateForm(f, { editing: !!destination });
    setErrors(e);
    return valid;
  };
  // After a first submit, errors follow every keystroke, so a fixed field clears at once.
  const update = (patch: Partial<FormState>) => {
    const next = { ...form, ...patch };
    setForm(next);
    if (submitted) validate(next);
  };

  const create = useCreateDestinationMutation();
  const patch = useUpdateDestinationMutation();
  // A save the API warned about keeps the form open, its warnings under the URLs they name; the
  // destination exists from then on, so saving again changes it instead of creating another.
  const [saved, setSaved] = useState<SavedDestinationDto | null>(null);
  const target = destination ?? saved;
  const save = target ? patch : create;
  const warnings = saved ? warningsByField(saved.warnings) : {};
  const submit = (input: ReturnType<typeof formToInput>) => {
    // Validated by validateForm just before; the create schema's output is what the API takes.
    const callbacks = {
      onSuccess: (d: SavedDestinationDto) => {
        if (d.warnings.length === 0) return router.push(`/destinations/${d.id}`);
        setSaved(d);
        focusWarned();
      },
      onError: (e: Error) => {
        if (e instanceof ApiError && e.fields) {
          setErrors(e.fields);
          focusFirstInvalid();
        }
      },
    };
    if (target) patch.mutate({ id: target.id, patch: destinationPatchSchema.parse(input) }, callbacks);
    else create.mutate(destinationInputSchema.parse(input), callbacks);
  };

  const errorCount = Object.keys(errors).length;
  const fieldError = (k: string) => errors[k]?.[0];

  return (
    <form
      ref={formRef}
      noValidate
      className="space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        setSubmitted(true);
        // Every error at once, and focus on the first: the user fixes them top to bottom.
        if (!validate(form)) focusFirstInvalid();
        else if (form.sourceIds.length === 0) setConfirmNoSource(true);
        else submit(formToInput(form));
      }}
    >
      {errorCount > 0 ? (
        <div role="alert" className="rounded-md bg-red-50 px-4 py-3 text-sm text-red-700 ring-1 ring-red-200">
          {errorCount === 1 ? "One field needs" : `${errorCount} fields need`} attention before this destination can be saved.
        </div>
      ) : null}

      <Section id="general" title="General" description="A name you will recognise in the request log and the overview.">
        <Field label="Name" htmlFor="dest-name" error={fieldError("name")}>
          <Input id="dest-name" value={form.name} placeholder="e.g. Orders service" onChange={(e) => update({ name: e.target.value })} />
        </Field>
        <div className="flex items-center gap-3">
          <button
            type="button"
            role="switch"
            aria-checked={form.enabled}
            aria-labelledby="dest-enabled-label"
            onClick={() => update({ enabled: !form.enabled })}
            className={`relative inline-flex h-6 w-11 shrink-0 rounded-full motion-safe:transition-colors ${form.enabled ? "bg-indigo-600" : "bg-slate-300"}`}
          >
            <span
              className={`inline-block h-5 w-5 translate-y-0.5 rounded-full bg-white shadow motion-safe:transition-transform ${form.enabled ? "translate-x-5.5" : "translate-x-0.5"}`}
            />
          </button>
          <span id="dest-enabled-label" className="text-sm text-slate-700">
            Enabled
          </span>
          <span className="text-xs text-slate-500">
            {form.enabled ? "Events are delivered as they arrive." : "Nothing is sent while disabled."}
          </span>
        </div>
      </Section>

      <Section
        id="endpoints"
        title="Endpoints"
        description="Each event is POSTed as JSON to these URLs. With several URLs, choose whether one success is enough or every URL must succeed."
      >
        <div ref={warnedRef}>
          <UrlRows urls={form.urls} errors={errors} warnings={warnings} onChange={(urls) => update({ urls })} />
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Delivery mode</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {(
              [
                ["any", "Any URL", "Sent to all URLs at once; done when one answers 2xx (the others are not retried)."],
                ["every", "Every URL", "Each URL is retried on its own until it answers 2xx."],
              ] as const
            ).map(([value, title, text]) => (
              <label
                key={value}
                className={`flex cursor-pointer gap-2 rounded-md p-3 ring-1 ring-inset ${form.mode === value ? "bg-indigo-50 ring-indigo-300" : "ring-slate-200 hover:bg-slate-50"}`}
              >
                <input
                  type="radio"
                  name="mode"
                  value={value}
                  checked={form.mode === value}
                  onChange={() => update({ mode: value })}
                  className="mt-0.5"
                />
                <span>
                  <span className="block text-sm font-medium text-slate-900">{title}</span>
                  <span className="block text-xs text-slate-600">{text}</span>
                </span>
              </label>
            ))}
          </div>
          {form.urls.length > 1 ? (
            <p role="note" className="mt-2 text-xs text-slate-600">
              {form.mode === "any"
                ? `With Any URL, each event goes to all ${form.urls.length} URLs at once and counts as delivered as soon as one answers 2xx: a URL that is down at that moment misses it and is not retried. Choose Every URL if each URL must get every event.`
                : `With Every URL, each of the ${form.urls.length} URLs gets every event, and a URL that is down is retried on its own until it answers 2xx.`}
            </p>
          ) : null}
        </fieldset>
      </Section>

      <Section
        id="request-shape"
        title="Request shape"
        description="Optional: the HTTP method, and a body mapping in Segment's mapping language. Left as they are, each call is POSTed with the default body."
      >
        <RequestShapeFields form={form} errors={errors} onChange={update} />
      </Section>

      <Section
        id="batching"
        title="Batching"
        description="Optional: many events per request, for endpoints that take arrays. Off, each event is POSTed on its own."
      >
        <BatchFields form={form} errors={errors} onChange={update} />
      </Section>

      <Section id="headers" title="Headers" description="Static headers added to every request.">
        <HeaderRows
          headers={form.headers}
          errors={errors}
          onChange={(headers) => update({ headers })}
          reveal={reveal ? (name) => reveal({ header: name }) : undefined}
        />
      </Section>

      <Section id="signing" title="Signing" description="Let your endpoint check that a request really comes from Eventrail.">
        <WriteOnlyField
          id="dest-secret"
          label="Shared secret"
          state={form.sharedSecret}
          error={fieldError("sharedSecret")}
          hint="When set, each request carries X-Signature: the hex HMAC-SHA1 of the body with this secret. Leave empty for no signature. Used exactly as entered."
          placeholder="optional"
          onChange={(sharedSecret) => update({ sharedSecret })}
          generate={generateSharedSecret}
          reveal={reveal ? () => reveal({ secret: "sharedSecret" }) : undefined}
        />
        <div className="rounded-md p-3 ring-1 ring-inset ring-slate-200">
          <label className="flex items-start gap-2">
            <input
              type="checkbox"
              className="mt-0.5"
              checked={form.standardWebhooks}
              onChange={(e) =>
                update({
                  standardWebhooks: e.target.checked,
                  standardSecret:
                    e.target.checked && form.standardSecret.action !== "keep" && !form.standardSecret.value
                      ? { ...form.standardSecret, action: "replace", value: generateStandardSecret() }
                      : form.standardSecret,
                })
              }
            />
            <span>
              <span className="block text-sm font-medium text-slate-900">Standard Webhooks signatures</span>
              <span className="block text-xs text-slate-500">
                Adds webhook-id, webhook-timestamp and webhook-signature (standardwebhooks.com), verifiable with the official libraries.
              </span>
            </span>
          </label>
          {form.standardWebhooks ? (
            <div className="mt-3">
              <WriteOnlyField
                id="dest-standard-secret"
                label="Signing secret"
                state={form.standardSecret}
                error={fieldError("standardSecret")}
                hint="whsec_ followed by base64."
                onChange={(standardSecret) => update({ standardSecret })}
                generate={generateStandardSecret}
                reveal={reveal ? () => reveal({ secret: "standardSecret" }) : undefined}
              />
            </div>
          ) : null}
        </div>
        {destination ? (
          <p className="text-xs text-slate-500">
            To change a secret with time for your receiver to switch, use <strong>Rotate secret</strong> on the{" "}
            <Link href={`/destinations/${destination.id}`} className="underline">
              destination's page
            </Link>
            : it acts at once, not on Save.
          </p>
        ) : null}
      </Section>

      <Section
        id="retries"
        title="Retries"
        description="Failed attempts (timeouts, 5xx, 408, 429, connection errors) are retried with exponential backoff until this window ends."
      >
        <Field
          label="Retry window (minutes)"
          htmlFor="dest-retry"
          error={fieldError("retryWindowMinutes")}
          hint={
            describeMinutes(form.retryWindowMinutes)
              ? `Retries for ${describeMinutes(form.retryWindowMinutes)} after the first attempt.`
              : undefined
          }
        >
          <Input
            id="dest-retry"
            inputMode="numeric"
            className="max-w-40"
            value={form.retryWindowMinutes}
            onChange={(e) => update({ retryWindowMinutes: e.target.value })}
          />
        </Field>
      </Section>

      <Section
        id="authentication"
        title="Authentication"
        description="For an endpoint behind an API gateway that wants a bearer token from its own authorization server, or a client certificate."
      >
        <AuthFields
          value={form.auth}
          errors={errors}
          onChange={(auth) => update({ auth })}
          reveal={reveal ? () => reveal({ secret: "authClientSecret" }) : undefined}
        />
        <TlsFields value={form.tls} errors={errors} onChange={(tls) => update({ tls })} />
      </Section>

      <Section
        id="rate-limit"
        title="Rate limit"
        description="The most this endpoint is sent, across all workers. Deliveries over the limit wait their turn: never dropped, not counted as attempts, and their retry window starts at their first attempt."
      >
        <RateLimitFields value={form.rateLimit} errors={errors} onChange={(rateLimit) => update({ rateLimit })} />
      </Section>

      <Section
        id="ordering"
        title="Ordering"
        description="Whether a user's later messages wait for their earlier ones. Off, each message goes as soon as it can, so a retry can arrive after a later message."
      >
        <OrderingFields value={form.ordering} errors={errors} onChange={(ordering) => update({ ordering })} />
      </Section>

      <Section
        id="sources"
        title="Sources"
        description={`Calls from the checked sources are sent here. A source sends to at most ${DESTINATION_LIMITS.perSource} destinations; a workspace has at most ${DESTINATION_LIMITS.perWorkspace}.`}
      >
        <SourcePicker
          sourceIds={form.sourceIds}
          errors={errors}
          preselectOnly={!destination}
          onChange={(sourceIds) => update({ sourceIds })}
        />
      </Section>

      <Section
        id="filter"
        title="Filter"
        description="Which calls this destination receives. Applied when a call arrives: a call the filter leaves out is never sent here."
      >
        <FilterFields filter={form.filter} sourceIds={form.sourceIds} errors={errors} onChange={(filter) => update({ filter })} />
      </Section>

      <ConfirmDialog
        open={confirmNoSource}
        title="Save without a source?"
        confirmLabel={destination ? "Save anyway" : "Create anyway"}
        busy={save.isPending}
        onCancel={() => setConfirmNoSource(false)}
        onConfirm={() => {
          setConfirmNoSource(false);
          submit(formToInput(form));
        }}
      >
        No source is connected, so this destination will receive no calls until you connect one. Test-sends still work.
      </ConfirmDialog>

      {save.error && !(save.error instanceof ApiError && save.error.fields) ? <ErrorNote error={save.error} /> : null}
      {saved ? (
        <p role="status" className="rounded-md bg-amber-50 px-4 py-3 text-sm text-amber-800 ring-1 ring-amber-200">
          Saved, with {saved.warnings.length === 1 ? "a warning" : `${saved.warnings.length} warnings`} under the URLs above.{" "}
          <Link href={`/destinations/${saved.id}`} className="font-medium underline">
            Open the destination
          </Link>{" "}
          or change the URLs and save again.
        </p>
      ) : null}
      <div className="sticky bottom-0 -mx-2 flex items-center justify-end gap-2 border-t border-slate-200 bg-slate-50/95 px-2 py-3 backdrop-blur">
        <Link
          href={target ? `/destinations/${target.id}` : "/destinations"}
          className="rounded-md px-3 py-1.5 text-sm text-slate-600 hover:bg-slate-100"
        >
          Cancel
        </Link>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : target ? "Save changes" : "Create destination"}
        </Button>
      </div>
    </form>
  );
}
