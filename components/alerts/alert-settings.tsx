"use client";

import { useEffect, useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { Card, ErrorNote, Spinner } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import type { AlertSettingsDto } from "@/lib/alerts/contract";
import { useAlertSettings, useUpdateAlertSettingsMutation } from "./hooks";

type Draft = { failingMinutes: string; successRatePercent: string; disableAfterDays: string; emailAdmins: boolean; notifyUrl: string };

const draftOf = (s: AlertSettingsDto): Draft => ({
  failingMinutes: String(s.failingMinutes),
  successRatePercent: String(s.successRatePercent),
  disableAfterDays: String(s.disableAfterDays),
  emailAdmins: s.emailAdmins,
  notifyUrl: "",
});

/** A number field's text as the API takes it: a number when it reads as one, else the text (the API names the field). */
const numberOrText = (v: string) => (v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v);

/** The workspace's endpoint alert settings (docs/alerts.md#settings), on the Settings page. */
export function AlertSettingsCard() {
  const settings = useAlertSettings();
  const save = useUpdateAlertSettingsMutation();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data && draft === null) setDraft(draftOf(settings.data));
  }, [settings.data, draft]);
  const fields = save.error instanceof ApiError ? save.error.fields : undefined;
  const err = (name: string) => fields?.[name]?.[0];

  if (settings.isPending || draft === null) return settings.isError ? <ErrorNote error={settings.error} /> : <Spinner />;
  const s = settings.data!;
  const set = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft({ ...draft, ...patch });
  };
  const submit = (body: Parameters<typeof save.mutate>[0]) =>
    save.mutate(body, {
      onSuccess: (r) => {
        setDraft(draftOf(r));
        setSaved(true);
      },
    });

  return (
    <Card className="p-5">
      <h2 className="text-base font-semibold text-slate-900">Endpoint alerts</h2>
      <p className="mt-1 max-w-2xl text-sm text-slate-600">
        When a destination URL keeps failing, a banner shows it here
        {s.smtpConfigured ? ", admins get an email" : " (email needs SMTP_URL on the server)"} and the notification URL gets a
        Slack-compatible message; again when it recovers. A URL failing for days is disabled until someone re-enables it.
      </p>
      <form
        className="mt-4 grid gap-4 sm:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          submit({
            failingMinutes: numberOrText(draft.failingMinutes) as number,
            successRatePercent: numberOrText(draft.successRatePercent) as number,
            disableAfterDays: numberOrText(draft.disableAfterDays) as number,
            emailAdmins: draft.emailAdmins,
            ...(draft.notifyUrl.trim() !== "" ? { notifyUrl: draft.notifyUrl.trim() } : {}),
          });
        }}
      >
        <Field label="Alert after failing for (minutes)" htmlFor="alert-failing-minutes" error={err("failingMinutes")}>
          <Input
            id="alert-failing-minutes"
            inputMode="numeric"
            value={draft.failingMinutes}
            onChange={(e) => set({ failingMinutes: e.target.value })}
          />
        </Field>
        <Field
          label="Alert under this success rate (%)"
          htmlFor="alert-success-rate"
          error={err("successRatePercent")}
          hint="Over the last hour; 0 turns it off"
        >
          <Input
            id="alert-success-rate"
            inputMode="numeric"
            value={draft.successRatePercent}
            onChange={(e) => set({ successRatePercent: e.target.value })}
          />
        </Field>
        <Field label="Disable after failing for (days)" htmlFor="alert-disable-days" error={err("disableAfterDays")}>
          <Input
            id="alert-disable-days"
            inputMode="numeric"
            value={draft.disableAfterDays}
            onChange={(e) => set({ disableAfterDays: e.target.value })}
          />
        </Field>
        <div className="sm:col-span-2">
          <Field
            label="Notification URL (Slack-compatible incoming webhook)"
            htmlFor="alert-notify-url"
            error={err("notifyUrl")}
            hint={s.notifyUrlSet ? `Set (${s.notifyUrlHost ?? "hidden"}); enter a new one to replace it` : "Not set"}
          >
            <Input
              id="alert-notify-url"
              type="url"
              placeholder="https://hooks.slack.com/services/…"
              value={draft.notifyUrl}
              onChange={(e) => set({ notifyUrl: e.target.value })}
            />
          </Field>
        </div>
        <label className="flex items-center gap-2 self-end text-sm text-slate-700">
          <input type="checkbox" checked={draft.emailAdmins} onChange={(e) => set({ emailAdmins: e.target.checked })} />
          Email the workspace's admins
        </label>
        <div className="flex flex-wrap items-center gap-3 sm:col-span-3">
          <Button type="submit" disabled={save.isPending}>
            Save alert settings
          </Button>
          {s.notifyUrlSet ? (
            <Button variant="secondary" disabled={save.isPending} onClick={() => submit({ notifyUrl: null })}>
              Remove notification URL
            </Button>
          ) : null}
          <span aria-live="polite" className="text-sm text-slate-600">
            {saved ? "Saved" : ""}
          </span>
          {save.error && !fields ? <ErrorNote error={save.error} /> : null}
        </div>
      </form>
    </Card>
  );
}
