"use client";

import type { CapturedRequestSummaryDto, Verdict } from "@/lib/capture/contract";
import { useSignatureCheck } from "./hooks";

const LOOK = {
  valid: { mark: "✓", cls: "bg-emerald-50 text-emerald-700 ring-emerald-200", word: "verified" },
  invalid: { mark: "✗", cls: "bg-red-50 text-red-700 ring-red-200", word: "does not match" },
  unverifiable: { mark: "?", cls: "bg-amber-50 text-amber-800 ring-amber-200", word: "not checked" },
  absent: { mark: "–", cls: "bg-slate-50 text-slate-500 ring-slate-200", word: "not sent" },
} as const;

export function VerdictBadge({ name, verdict }: { name: string; verdict: Verdict | undefined }) {
  if (!verdict) return null;
  const look = LOOK[verdict.state];
  return (
    <span
      role="img"
      title={verdict.detail}
      aria-label={`${name} ${look.word}`}
      className={`inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${look.cls}`}
    >
      <span aria-hidden>{look.mark}</span> {name}
    </span>
  );
}

/**
 * Both signature checks of one request, done by the server with a destination's secrets: the one
 * chosen under "Verify signatures", or by default the one that sent it (docs/dashboard.md#capture-urls).
 */
export function SignatureChecks({ binId, requestId, destinationId }: { binId: string; requestId: string; destinationId: string | null }) {
  const check = useSignatureCheck(binId, requestId, destinationId);
  if (check.isError) return <p className="mt-2 text-xs text-red-600">{(check.error as Error).message}</p>;
  const v = check.data;
  if (v?.checkedAgainst === "none") {
    return (
      <p className="mt-2 text-xs text-slate-500">
        No destination of this workspace sends here: choose one under “Verify signatures” to check.
      </p>
    );
  }
  return (
    <>
      {v?.destinationName ? (
        <p className="mt-2 text-xs text-slate-500">
          Checked against <bdi className="font-medium text-slate-700">{v.destinationName}</bdi>
          {v.checkedAgainst === "sender" ? ", which sent it" : ""}
        </p>
      ) : null}
      <fieldset className="mt-3 flex min-w-0 flex-wrap gap-2" aria-label="Signature checks" aria-busy={check.isPending}>
        <VerdictBadge name="X-Signature" verdict={v?.xSignature} />
        <VerdictBadge name="Standard Webhooks" verdict={v?.standardWebhooks} />
      </fieldset>
      {v && v.xSignature.state !== "absent" ? <p className="mt-1 text-xs text-slate-500">X-Signature: {v.xSignature.detail}</p> : null}
      {v && v.standardWebhooks.state !== "absent" ? (
        <p className="mt-1 text-xs text-slate-500">Standard Webhooks: {v.standardWebhooks.detail}</p>
      ) : null}
    </>
  );
}

/** A compact mark for the request list: the request carries a signature (checked when opened). */
export function SignedMark({ req }: { req: CapturedRequestSummaryDto }) {
  if (!req.signed.xSignature && !req.signed.standardWebhooks) return null;
  return (
    <span
      role="img"
      title="Signed: open it to see its signatures checked"
      aria-label="signed"
      className="inline-flex h-5 items-center justify-center rounded-full px-1.5 text-[10px] font-medium text-indigo-700 ring-1 ring-inset ring-indigo-200"
    >
      sig
    </span>
  );
}
