"use client";

import { useEffect, useState } from "react";
import { ChoiceGroup } from "@/components/ui/choice-group";
import { ConfirmButton } from "@/components/ui/confirm-button";
import type { SourceDto } from "@/lib/sources/contract";
import { ROTATION_GRACE_CHOICES } from "@/lib/sources/rotation";
import { useRotateSourceKeyMutation } from "./hooks";

/** The grace periods the dialog offers (docs/tracking-api.md#write-key-rotation); the API takes any number of minutes up to 7 days. */
export const GRACE_LABELS: Record<(typeof ROTATION_GRACE_CHOICES)[number], string> = {
  0: "None",
  60: "1 hour",
  1440: "24 hours",
  10080: "7 days",
};
export type Grace = `${(typeof ROTATION_GRACE_CHOICES)[number]}`;

/** "23 h 59 min 58 s", "4 min 2 s": time left, to the second, as a countdown reads. */
export function timeLeft(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [d ? `${d} d` : "", d || h ? `${h} h` : "", d || h || m ? `${m} min` : "", `${s % 60} s`];
  return parts.filter(Boolean).join(" ");
}

/**
 * Rotate the write key, confirmed in the in-app dialog with a grace period for the old key (as
 * Stripe does for webhook secrets): clients keep working while they move to the new key.
 */
/** The grace period of a rotation (a write key's, a destination secret's): one of ROTATION_GRACE_CHOICES. */
export function GraceChoice({ label, value, onChange }: { label: string; value: Grace; onChange: (g: Grace) => void }) {
  return (
    <span className="mt-3 block">
      <ChoiceGroup
        label={label}
        labelVisible
        options={ROTATION_GRACE_CHOICES.map((m) => ({ value: `${m}` as Grace, label: GRACE_LABELS[m] }))}
        value={value}
        onChange={onChange}
      />
    </span>
  );
}

export function RotateKeyButton({ source }: { source: SourceDto }) {
  const rotate = useRotateSourceKeyMutation();
  const [grace, setGrace] = useState<Grace>("1440");
  const minutes = Number(grace);
  return (
    <ConfirmButton
      label="Rotate"
      title="Rotate the write key?"
      confirmLabel="Rotate write key"
      tone="danger"
      busy={rotate.isPending}
      error={rotate.error}
      onConfirm={(close) => rotate.mutate({ id: source.id, graceMinutes: minutes }, { onSuccess: close })}
    >
      <span className="block">A new key is made and works at once. How long should the current key keep working?</span>
      <GraceChoice label="Old key keeps working for" value={grace} onChange={setGrace} />
      <span className="mt-3 block text-sm text-slate-600" aria-live="polite">
        {minutes === 0
          ? "Clients still sending with the current key get 401 immediately."
          : `Clients can keep sending with the current key for ${GRACE_LABELS[minutes as keyof typeof GRACE_LABELS]}; after that it answers 401.`}
        {source.previousWriteKey ? " The older key still in its grace period stops working now: only one old key is kept." : ""}
      </span>
    </ConfirmButton>
  );
}

/** The old key during its grace period, with the time it has left, counted down each second. */
export function PreviousKeyNotice({ previous }: { previous: NonNullable<SourceDto["previousWriteKey"]> }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  const left = new Date(previous.expiresAt).getTime() - now;
  return (
    <div
      role="status"
      aria-label="Old write key"
      className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200"
    >
      {left > 0 ? (
        <>
          The old key <code className="font-mono">{previous.prefix}••••</code> still works for{" "}
          <strong data-testid="grace-left" suppressHydrationWarning>
            {timeLeft(left)}
          </strong>{" "}
          (until <time dateTime={previous.expiresAt}>{new Date(previous.expiresAt).toLocaleString()}</time>). Move your clients to the new
          key before then.
        </>
      ) : (
        <>
          The old key <code className="font-mono">{previous.prefix}••••</code> no longer works.
        </>
      )}
    </div>
  );
}
