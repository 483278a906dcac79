"use client";

import { useState } from "react";
import type { CaptureBinDto } from "@/lib/capture/contract";
import { CAPTURE_LIMITS } from "@/lib/capture/limits";
import { ApiError } from "@/components/data/api-client";
import { fieldErrorsFromIssues } from "@/lib/api/field-errors";
import { Button } from "@/components/ui/button";
import { ErrorNote } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { useFocusFirstInvalid } from "@/components/ui/use-focus-first-invalid";
import { useUpdateCaptureBinMutation } from "./hooks";

const PRESETS = [200, 201, 204, 400, 404, 429, 500, 503];

/** The API's own schema, loaded when the form is first sent: with zod, it stays out of the page's first load (decision 0175). */
const loadSchema = () => import("@/lib/capture/contract").then((m) => m.updateCaptureBinSchema);

/** Name, response status and delay; validated with the API's own schema before it is sent. */
export function CaptureSettings({ bin }: { bin: CaptureBinDto }) {
  const [name, setName] = useState(bin.name);
  const [status, setStatus] = useState(String(bin.responseStatus));
  const [delay, setDelay] = useState(String(bin.responseDelayMs));
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState(false);
  const save = useUpdateCaptureBinMutation();
  const [formRef, focusFirstInvalid] = useFocusFirstInvalid();
  const num = (s: string) => (s.trim() === "" || Number.isNaN(Number(s)) ? undefined : Number(s));

  return (
    <form
      ref={formRef}
      noValidate
      className="space-y-4"
      onSubmit={async (e) => {
        e.preventDefault();
        const parsed = (await loadSchema()).safeParse({ name, responseStatus: num(status) ?? NaN, responseDelayMs: num(delay) ?? NaN });
        setFields(parsed.success ? {} : fieldErrorsFromIssues(parsed.error.issues));
        if (!parsed.success) {
          focusFirstInvalid();
          return;
        }
        save.mutate(
          { id: bin.id, patch: parsed.data },
          {
            onSuccess: () => {
              setSaved(true);
              setTimeout(() => setSaved(false), 2000);
            },
            onError: (err) => {
              if (err instanceof ApiError && err.fields) {
                setFields(err.fields);
                focusFirstInvalid();
              }
            },
          },
        );
      }}
    >
      <Field label="Name" htmlFor="bin-name" error={fields.name?.[0]} hint="Only for you, to tell capture URLs apart.">
        <Input id="bin-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Orders webhook test" />
      </Field>
      <div className="grid grid-cols-2 gap-3">
        <Field label="Response status" htmlFor="bin-status" error={fields.responseStatus?.[0]}>
          <Input id="bin-status" inputMode="numeric" value={status} onChange={(e) => setStatus(e.target.value)} />
        </Field>
        <Field label="Response delay (ms)" htmlFor="bin-delay" error={fields.responseDelayMs?.[0]}>
          <Input id="bin-delay" inputMode="numeric" value={delay} onChange={(e) => setDelay(e.target.value)} />
        </Field>
      </div>
      <fieldset className="flex min-w-0 flex-wrap gap-1" aria-label="Status presets">
        {PRESETS.map((p) => (
          <button
            key={p}
            type="button"
            onClick={() => setStatus(String(p))}
            className={`rounded px-2 py-0.5 font-mono text-xs ring-1 ring-inset ${String(p) === status ? "bg-indigo-50 text-indigo-700 ring-indigo-300" : "text-slate-600 ring-slate-200 hover:bg-slate-50"}`}
          >
            {p}
          </button>
        ))}
      </fieldset>
      <p className="text-xs text-slate-500">
        A 5xx, 408 or 429 makes Eventrail retry; a delay over 5,000 ms makes it time out. Delay at most {CAPTURE_LIMITS.maxDelayMs / 1000}{" "}
        s.
      </p>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save response settings"}
        </Button>
        {saved ? (
          <span role="status" className="text-sm text-emerald-700">
            Saved ✓
          </span>
        ) : null}
      </div>
      {save.error && !(save.error instanceof ApiError && save.error.fields) ? <ErrorNote error={save.error} /> : null}
    </form>
  );
}
