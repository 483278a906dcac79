"use client";

import { useEffect, useState } from "react";
import type { CapturedRequestDto } from "@/lib/capture/schemas";
import { verifyStandardWebhook, verifyXSignature, type Verdict } from "@/lib/capture/verify";

export type Secrets = { shared: string; standard: string };

/** Both signature checks of one request, recomputed when the secrets change. */
export function useVerdicts(req: CapturedRequestDto, secrets: Secrets): { x: Verdict; standard: Verdict } | null {
  const [v, setV] = useState<{ x: Verdict; standard: Verdict } | null>(null);
  useEffect(() => {
    let live = true;
    const input = { headers: req.headers, body: req.body, truncated: req.truncated };
    Promise.all([verifyXSignature({ ...input, secret: secrets.shared }), verifyStandardWebhook({ ...input, secret: secrets.standard })]).then(
      ([x, standard]) => live && setV({ x, standard }),
    );
    return () => {
      live = false;
    };
  }, [req, secrets.shared, secrets.standard]);
  return v;
}

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
      title={verdict.detail}
      aria-label={`${name} ${look.word}`}
      className={`inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${look.cls}`}
    >
      <span aria-hidden>{look.mark}</span> {name}
    </span>
  );
}

/** A compact mark for the request list: the X-Signature verdict, or Standard Webhooks when that is what was sent. */
export function VerdictMark({ req, secrets }: { req: CapturedRequestDto; secrets: Secrets }) {
  const v = useVerdicts(req, secrets);
  if (!v) return null;
  const main = v.x.state !== "absent" ? v.x : v.standard;
  if (main.state === "absent") return null;
  const look = LOOK[main.state];
  return (
    <span title={main.detail} aria-label={`signature ${look.word}`} className={`inline-flex h-5 w-5 items-center justify-center rounded-full text-xs ring-1 ring-inset ${look.cls}`}>
      {look.mark}
    </span>
  );
}
