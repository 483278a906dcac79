"use client";

import { useEffect, useRef, useState } from "react";
import { ApiError } from "@/components/data/api-client";
import { Button } from "@/components/ui/button";
import { ErrorNote } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { CopyButton } from "@/components/ui/copy-button";
import { ModalDialog } from "@/components/ui/dialog";
import { GRACE_LABELS, GraceChoice, timeLeft, type Grace } from "@/components/sources/key-rotation";
import type { DestinationDto, PreviousSecret, RotateSecretInput } from "@/lib/destinations/contract";
import { useRotateDestinationSecretMutation } from "./hooks";
import { SecretField } from "./secret-field";
import { PemArea } from "./tls-section";

export type RotatableSecret = RotateSecretInput["secret"];

export const SECRET_NAMES: Record<RotatableSecret, { title: string; inText: string }> = {
  sharedSecret: { title: "X-Signature shared secret", inText: "shared secret" },
  standardSecret: { title: "Standard Webhooks secret", inText: "Standard Webhooks secret" },
  authClientSecret: { title: "OAuth2 client secret", inText: "client secret" },
  tlsClientKey: { title: "mTLS client certificate and key", inText: "client certificate" },
};

/**
 * Where each secret is used after a rotation (docs/signing.md#what-the-receiver-sees,
 * docs/endpoint-auth.md#rotation): the new one, with an old one beside it or alone, and the old one.
 */
const USE: Record<RotatableSecret, { withOld: string; alone: string; old: string }> = {
  sharedSecret: {
    withOld: "it signs X-Signature-Next from the next request, and X-Signature once the old one ends",
    alone: "it signs X-Signature from the next request",
    old: "still signs X-Signature",
  },
  standardSecret: {
    withOld: "it signs first in webhook-signature from the next request",
    alone: "it signs webhook-signature from the next request",
    old: "still signs second in webhook-signature",
  },
  authClientSecret: {
    withOld: "it is sent to the token endpoint from the next token request",
    alone: "it is sent to the token endpoint from the next token request",
    old: "is tried only when the token endpoint refuses the new one",
  },
  tlsClientKey: {
    withOld: "it is presented from the next connection",
    alone: "it is presented from the next connection",
    old: "is presented only after a receiver refuses the new one",
  },
};

/** The secrets of a destination that can be rotated: the ones that are set. */
export function rotatableSecrets(d: DestinationDto): RotatableSecret[] {
  const set: RotatableSecret[] = [];
  if (d.sharedSecret.set) set.push("sharedSecret");
  if (d.standardSecret.set) set.push("standardSecret");
  if (d.auth?.clientSecret.set) set.push("authClientSecret");
  if (d.tls) set.push("tlsClientKey");
  return set;
}

export function previousOf(d: DestinationDto, which: RotatableSecret): PreviousSecret | null {
  if (which === "sharedSecret") return d.previousSharedSecret;
  if (which === "standardSecret") return d.previousStandardSecret;
  if (which === "tlsClientKey") return d.tls?.previous ? { last4: null, expiresAt: d.tls.previous.expiresAt } : null;
  return d.auth?.previousClientSecret ?? null;
}

const hint = (last4: string | null) => (last4 ? `••••${last4}` : "set");

/** The current secret as the dialog names it: its last four characters, or a certificate's subject. */
function currentHint(d: DestinationDto, which: RotatableSecret): string {
  if (which === "tlsClientKey") return d.tls?.subject ?? "set";
  return hint(which === "authClientSecret" ? (d.auth?.clientSecret.last4 ?? null) : d[which].last4);
}

/** The old one during its grace: likewise. */
const previousHint = (d: DestinationDto, which: RotatableSecret, previous: PreviousSecret) =>
  which === "tlsClientKey" ? (d.tls?.previous?.subject ?? "set") : hint(previous.last4);

/** Credentials issued elsewhere are typed in; signing secrets are generated. */
const typedIn = (which: RotatableSecret) => which === "authClientSecret" || which === "tlsClientKey";

/**
 * "Rotate secret" on the destination page (docs/signing.md#secret-rotation, docs/endpoint-auth.md#rotation):
 * a dialog that chooses the secret and how long the current one keeps working, rotates on confirm
 * (at once: it is not a form to save), then says what happened — the new secret shown this once
 * (signing secrets are generated; an OAuth2 client secret is typed in, as the authorization server
 * issues it) and which secrets are valid until when. Closing it forgets the new secret.
 */
export function RotateSecretButton({ destination }: { destination: DestinationDto }) {
  const [open, setOpen] = useState(false);
  const rotatable = rotatableSecrets(destination);
  if (rotatable.length === 0) return null;
  return (
    <>
      <Button variant="secondary" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Rotate secret
      </Button>
      <ModalDialog open={open} title="Rotate a secret" onCancel={() => setOpen(false)} wide>
        {open ? <RotationSteps destination={destination} initial={rotatable[0]} onClose={() => setOpen(false)} /> : null}
      </ModalDialog>
    </>
  );
}

type Done = { which: RotatableSecret; value: string; minutes: number; after: DestinationDto };

function RotationSteps({ destination, initial, onClose }: { destination: DestinationDto; initial: RotatableSecret; onClose: () => void }) {
  const rotate = useRotateDestinationSecretMutation();
  const [which, setWhich] = useState<RotatableSecret>(initial);
  const [grace, setGrace] = useState<Grace>("1440");
  const [value, setValue] = useState("");
  const [cert, setCert] = useState("");
  const [done, setDone] = useState<Done | null>(null);
  const minutes = Number(grace) as keyof typeof GRACE_LABELS;
  const typed = typedIn(which);
  const tls = which === "tlsClientKey";
  const fieldErrors = rotate.error instanceof ApiError ? rotate.error.fields : undefined;
  const valueError = typed ? fieldErrors?.value?.[0] : undefined;
  const certError = tls ? fieldErrors?.clientCert?.[0] : undefined;

  if (done) return <RotationResult done={done} onClose={onClose} />;
  const name = SECRET_NAMES[which].inText;
  const olderEnds = previousOf(destination, which);
  return (
    <form
      noValidate
      className="mt-2 space-y-4 text-sm text-slate-600"
      onSubmit={(e) => {
        e.preventDefault();
        const input: RotateSecretInput = tls
          ? { secret: which, graceMinutes: minutes, value, clientCert: cert }
          : typed
            ? { secret: which, graceMinutes: minutes, value }
            : { secret: which, graceMinutes: minutes };
        rotate.mutate(
          { id: destination.id, input },
          {
            onSuccess: (r) => setDone({ which, value: r.value, minutes, after: r.destination }),
            // A refused value is said at its field, which takes focus (docs/dashboard.md#any-screen-any-input).
            onError: (e) => {
              if (e instanceof ApiError && e.fields?.clientCert) document.getElementById("rotate-tls-cert")?.focus();
              else if (e instanceof ApiError && e.fields?.value)
                document.getElementById(tls ? "rotate-tls-key" : "rotate-client-secret")?.focus();
            },
          },
        );
      }}
    >
      <fieldset className="min-w-0">
        <legend className="mb-1 block text-sm font-medium text-slate-700">Secret</legend>
        <div className="space-y-1">
          {rotatableSecrets(destination).map((w) => (
            <label
              key={w}
              className={`flex cursor-pointer items-start gap-2 rounded-md p-2 ring-1 ring-inset ${which === w ? "bg-indigo-50 ring-indigo-300" : "ring-slate-200 hover:bg-slate-50"}`}
            >
              <input
                type="radio"
                name="rotate-which"
                className="mt-0.5"
                checked={which === w}
                data-initial-focus={w === initial ? true : undefined}
                onChange={() => {
                  setWhich(w);
                  rotate.reset();
                }}
              />
              <span className="min-w-0">
                <span className="block font-medium text-slate-900">{SECRET_NAMES[w].title}</span>
                <span className="block text-xs text-slate-500">
                  current <code className="font-mono">{currentHint(destination, w)}</code>
                  {w === "tlsClientKey"
                    ? " · you paste the new pair in"
                    : w === "authClientSecret"
                      ? " · you type the new one in"
                      : " · a new one is generated"}
                </span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {tls ? (
        <>
          <Field label="New client certificate (PEM)" htmlFor="rotate-tls-cert" error={certError} hint="As your CA issued it.">
            <PemArea id="rotate-tls-cert" value={cert} onChange={setCert} placeholder="-----BEGIN CERTIFICATE-----" />
          </Field>
          <Field label="Its private key (PEM)" htmlFor="rotate-tls-key" error={valueError} hint="Write-only: never shown again.">
            <PemArea id="rotate-tls-key" value={value} onChange={setValue} placeholder="-----BEGIN PRIVATE KEY-----" />
          </Field>
        </>
      ) : typed ? (
        <SecretField
          id="rotate-client-secret"
          label="New client secret"
          value={value}
          error={valueError}
          hint="As your authorization server issued it. Register it there before the grace period ends."
          onChange={setValue}
        />
      ) : null}
      <GraceChoice
        label={
          tls
            ? "The current certificate stays usable for"
            : typed
              ? "The current client secret stays usable for"
              : "The current secret keeps signing for"
        }
        value={grace}
        onChange={setGrace}
      />
      <p aria-live="polite">
        {tls
          ? minutes === 0
            ? "Only the new certificate is presented from the next connection."
            : `For ${GRACE_LABELS[minutes]}, when a receiver refuses the new certificate, that attempt fails and the current one is presented to its retry, so your receivers can trust the new one whenever they are ready.`
          : minutes === 0
            ? typed
              ? "Only the new client secret is sent from the next token request."
              : "Only the new secret signs from the next request: a receiver still checking with the current one rejects everything until it switches."
            : typed
              ? `For ${GRACE_LABELS[minutes]}, the current client secret is tried when the token endpoint refuses the new one, so the two need not change at the same moment.`
              : `For ${GRACE_LABELS[minutes]}, both secrets sign, so your receiver can switch to the new one whenever it is ready.`}
        {olderEnds ? ` The older ${name} still in its grace period stops now: only one old secret is kept.` : ""}
      </p>
      {rotate.error && !valueError ? <ErrorNote error={rotate.error} /> : null}
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button type="submit" variant="danger" disabled={rotate.isPending}>
          {rotate.isPending ? "Rotating…" : `Rotate ${name}`}
        </Button>
      </div>
    </form>
  );
}

/** What the rotation did: the new secret once (when generated), and each secret that works, until when. */
function RotationResult({ done, onClose }: { done: Done; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  // The form it replaces had focus: the result takes it, so a screen reader reads what happened.
  useEffect(() => ref.current?.focus(), []);
  const { which, after } = done;
  const previous = previousOf(after, which);
  const name = SECRET_NAMES[which].inText;
  const generated = !typedIn(which);
  return (
    <div className="mt-2 space-y-4 text-sm text-slate-700">
      <div ref={ref} tabIndex={-1} role="status" aria-label="Rotation result" className="space-y-3 focus:outline-none">
        <p className="font-medium text-slate-900">The {name} is rotated.</p>
        {generated ? (
          <div className="space-y-2 rounded-md bg-indigo-50 p-3 text-indigo-950 ring-1 ring-indigo-200">
            <p className="font-medium">New {name}: shown this once</p>
            <code data-testid="new-secret" className="block break-all rounded bg-white px-2 py-1 font-mono text-xs ring-1 ring-indigo-200">
              {done.value}
            </code>
            <CopyButton value={done.value} label="Copy the new secret" />
          </div>
        ) : null}
        <ul aria-label="Valid secrets" className="space-y-1">
          <li className="rounded-md bg-slate-50 px-3 py-2 ring-1 ring-inset ring-slate-200">
            New <code className="font-mono">{currentHint(after, which)}</code>: valid now;{" "}
            {previous ? USE[which].withOld : USE[which].alone}.
          </li>
          <li
            data-testid="old-secret-until"
            className={`rounded-md px-3 py-2 ring-1 ring-inset ${previous ? "bg-amber-50 text-amber-900 ring-amber-200" : "bg-slate-50 ring-slate-200"}`}
          >
            {previous ? (
              <>
                Old <code className="font-mono">{previousHint(after, which, previous)}</code>: valid until{" "}
                <time dateTime={previous.expiresAt} suppressHydrationWarning>
                  {new Date(previous.expiresAt).toLocaleString()}
                </time>{" "}
                ({GRACE_LABELS[done.minutes as keyof typeof GRACE_LABELS]}); it {USE[which].old} meanwhile.
              </>
            ) : (
              <>Old {name}: no longer valid (no grace period).</>
            )}
          </li>
        </ul>
        {generated ? (
          <p className="text-xs text-slate-500">
            Closing this forgets the new secret here; an admin can still reveal it from the destination's page (audited).
          </p>
        ) : null}
      </div>
      <div className="flex justify-end">
        <Button onClick={onClose}>Done</Button>
      </div>
    </div>
  );
}

/** The old secret while it still works, with the time it has left, counted down each second. */
export function PreviousNotice({
  which,
  previous,
  oldLabel,
}: {
  which: RotatableSecret;
  previous: PreviousSecret | null;
  /** how the old one is named, when not by its last four characters (a certificate's subject) */
  oldLabel?: string;
}) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!previous) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [previous]);
  if (!previous) return null;
  const left = new Date(previous.expiresAt).getTime() - now;
  const old = <code className="font-mono">{oldLabel ?? hint(previous.last4)}</code>;
  return (
    <span className="mt-1 block rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 ring-1 ring-amber-200" data-testid={`${which}-grace`}>
      {left > 0 ? (
        <>
          Rotating: the old {SECRET_NAMES[which].inText} {old} {USE[which].old} for{" "}
          <strong suppressHydrationWarning>{timeLeft(left)}</strong> (until{" "}
          <time dateTime={previous.expiresAt} suppressHydrationWarning>
            {new Date(previous.expiresAt).toLocaleString()}
          </time>
          ).
        </>
      ) : (
        <>
          The old {SECRET_NAMES[which].inText} {old} is no longer used.
        </>
      )}
    </span>
  );
}
