"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { CopyButton } from "@/components/ui/copy-button";
import { GRACE_LABELS, GraceChoice, timeLeft, type Grace } from "@/components/sources/key-rotation";
import type { DestinationDto, PreviousSecret } from "@/lib/destinations/contract";
import { useRotateDestinationSecretMutation } from "./hooks";

type Which = "sharedSecret" | "standardSecret";
const NAMES: Record<Which, { title: string; inText: string; header: string }> = {
  sharedSecret: { title: "Shared secret", inText: "shared secret", header: "X-Signature" },
  standardSecret: { title: "Standard Webhooks secret", inText: "Standard Webhooks secret", header: "webhook-signature" },
};

/** What the receiver sees during the grace period, per scheme (docs/signing.md#secret-rotation). */
const OVERLAP: Record<Which, string> = {
  sharedSecret: "X-Signature keeps the current secret's signature and X-Signature-Next carries the new one's",
  standardSecret: "webhook-signature carries both signatures, the new one first",
};

/**
 * Secret rotation (docs/signing.md#secret-rotation), a section of the destination form a user can
 * leave closed: a new secret signs at once, the current one keeps signing beside it for the grace
 * period, so the receiver can switch without rejecting a request. It acts at once (confirmed in a
 * dialog), not on "Save changes". The new secret is shown here once, never again.
 */
export function SecretRotation({ destination }: { destination: DestinationDto }) {
  const rotatable = (["sharedSecret", "standardSecret"] as const).filter((w) => destination[w].set);
  const [shown, setShown] = useState<{ which: Which; value: string } | null>(null);
  if (rotatable.length === 0) return null;
  const inGrace = rotatable.some((w) => previousOf(destination, w));
  return (
    <details className="rounded-md ring-1 ring-inset ring-slate-200" open={inGrace || shown !== null}>
      <summary className="cursor-pointer rounded-md px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-500">
        Rotate a secret{" "}
        <span className="font-normal text-slate-500">
          {inGrace ? "· an old secret still signs" : "· optional: a new secret, with time for your receiver to switch"}
        </span>
      </summary>
      <div className="space-y-4 border-t border-slate-100 p-3">
        {shown ? <NewSecret which={shown.which} value={shown.value} onDone={() => setShown(null)} /> : null}
        {rotatable.map((which) => (
          <div key={which} className="flex flex-wrap items-start justify-between gap-2">
            <div className="min-w-0 flex-1 basis-56 text-sm">
              <span className="block font-medium text-slate-900">{NAMES[which].title}</span>
              <span className="block text-xs text-slate-500">
                Signs <code className="font-mono">{NAMES[which].header}</code>
                {destination[which].last4 ? (
                  <>
                    {" "}
                    · current <code className="font-mono">••••{destination[which].last4}</code>
                  </>
                ) : null}
              </span>
              <PreviousNotice which={which} previous={previousOf(destination, which)} />
            </div>
            <RotateButton destination={destination} which={which} onRotated={(value) => setShown({ which, value })} />
          </div>
        ))}
      </div>
    </details>
  );
}

const previousOf = (d: DestinationDto, which: Which): PreviousSecret | null =>
  which === "sharedSecret" ? d.previousSharedSecret : d.previousStandardSecret;

function RotateButton({ destination, which, onRotated }: { destination: DestinationDto; which: Which; onRotated: (v: string) => void }) {
  const rotate = useRotateDestinationSecretMutation();
  const [grace, setGrace] = useState<Grace>("1440");
  const minutes = Number(grace) as keyof typeof GRACE_LABELS;
  const name = NAMES[which].inText;
  return (
    <ConfirmButton
      label="Rotate"
      ariaLabel={`Rotate the ${name}`}
      title={`Rotate the ${name}?`}
      confirmLabel={`Rotate ${name}`}
      tone="danger"
      busy={rotate.isPending}
      error={rotate.error}
      onConfirm={(close) =>
        rotate.mutate(
          { id: destination.id, input: { secret: which, graceMinutes: minutes } },
          {
            onSuccess: (r) => {
              onRotated(r.value);
              close();
            },
          },
        )
      }
    >
      <span className="block">A new secret is made and signs at once. How long should the current one keep signing beside it?</span>
      <GraceChoice label="Current secret keeps signing for" value={grace} onChange={setGrace} />
      <span className="mt-3 block text-sm text-slate-600" aria-live="polite">
        {minutes === 0
          ? "Only the new secret signs from the next request: a receiver still checking with the current one rejects everything until it switches."
          : `For ${GRACE_LABELS[minutes]}, ${OVERLAP[which]}, so your receiver can switch to the new secret whenever it is ready; after that only the new one signs.`}
        {previousOf(destination, which)
          ? " The older secret still in its grace period stops signing now: only one old secret is kept."
          : ""}
      </span>
    </ConfirmButton>
  );
}

/** The new secret, once: copy it to the receiver now; closing it (or leaving the page) forgets it. */
function NewSecret({ which, value, onDone }: { which: Which; value: string; onDone: () => void }) {
  return (
    <div
      role="status"
      aria-label="New secret"
      className="space-y-2 rounded-md bg-indigo-50 p-3 text-sm text-indigo-950 ring-1 ring-indigo-200"
    >
      <p className="font-medium">New {NAMES[which].inText}: shown this once</p>
      <code data-testid="new-secret" className="block break-all rounded bg-white px-2 py-1 font-mono text-xs ring-1 ring-indigo-200">
        {value}
      </code>
      <div className="flex flex-wrap gap-2">
        <CopyButton value={value} label="Copy the new secret" />
        <Button variant="ghost" onClick={onDone}>
          I have saved it
        </Button>
      </div>
    </div>
  );
}

/** The old secret while it still signs, with the time it has left, counted down each second. */
function PreviousNotice({ which, previous }: { which: Which; previous: PreviousSecret | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!previous) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [previous]);
  if (!previous) return null;
  const left = new Date(previous.expiresAt).getTime() - now;
  const old = previous.last4 ? <code className="font-mono">••••{previous.last4}</code> : "The old secret";
  return (
    <span className="mt-1 block rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 ring-1 ring-amber-200" data-testid={`${which}-grace`}>
      {left > 0 ? (
        <>
          Old secret {old} still signs ({which === "sharedSecret" ? "X-Signature" : "second in webhook-signature"}) for{" "}
          <strong suppressHydrationWarning>{timeLeft(left)}</strong> (until{" "}
          <time dateTime={previous.expiresAt}>{new Date(previous.expiresAt).toLocaleString()}</time>). Switch your receiver before then.
        </>
      ) : (
        <>Old secret {old} no longer signs.</>
      )}
    </span>
  );
}

/** On the destination's page: which old secrets still sign, and until when (docs/signing.md#secret-rotation). */
export function RotationNotice({ destination }: { destination: DestinationDto }) {
  const signing = (["sharedSecret", "standardSecret"] as const).flatMap((w) => {
    const previous = previousOf(destination, w);
    return previous ? [{ which: w, previous }] : [];
  });
  if (signing.length === 0) return null;
  return (
    <ul className="space-y-1 text-xs text-amber-900">
      {signing.map(({ which, previous }) => (
        <li key={which} className="rounded bg-amber-50 px-2 py-1 ring-1 ring-amber-200">
          Rotating: the old {NAMES[which].inText}
          {previous.last4 ? <code className="font-mono"> ••••{previous.last4}</code> : null} signs beside the new one until{" "}
          <time dateTime={previous.expiresAt}>{new Date(previous.expiresAt).toLocaleString()}</time>
        </li>
      ))}
    </ul>
  );
}
