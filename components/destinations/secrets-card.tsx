"use client";

import Link from "next/link";
import { Badge, Card } from "@/components/ui/card";
import type { DestinationDto } from "@/lib/destinations/contract";
import { revealDestinationValue } from "./hooks";
import { PreviousNotice, previousOf, RotateSecretButton, rotatableSecrets } from "./secret-rotation";
import { VerifyInCode } from "./verify-in-code";
import { StoredValue } from "./write-only-field";

function Secret({ title, badge, children }: { title: string; badge?: string; children: React.ReactNode }) {
  return (
    <li className="min-w-0 py-3 first:pt-0 last:pb-0">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-medium text-slate-900">{title}</h3>
        {badge ? <Badge tone="indigo">{badge}</Badge> : null}
      </div>
      <div className="mt-1 min-w-0 space-y-1">{children}</div>
    </li>
  );
}

/**
 * The destination's secrets on its page (docs/dashboard.md#destinations): each one write-only (its hint,
 * Reveal for admins, audited), the old one's countdown while a rotation's grace period lasts, "Rotate
 * secret" (the dialog), and beside each signing secret the receiver-side check in Node, Python and Go.
 */
export function SecretsCard({ destination: d, canEdit }: { destination: DestinationDto; canEdit: boolean }) {
  const reveal = (which: "sharedSecret" | "standardSecret" | "authClientSecret") =>
    canEdit ? () => revealDestinationValue(d.id, { secret: which }) : undefined;
  const any = d.sharedSecret.set || d.standardSecret.set || d.auth || d.tls;
  return (
    <Card className="p-5">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <h2 className="text-sm font-semibold text-slate-900">Secrets</h2>
          <p className="mt-1 text-xs text-slate-500">
            Write-only: shown as their last 4 characters. Rotating keeps the current secret working beside the new one for a while.
          </p>
        </div>
        {canEdit && rotatableSecrets(d).length > 0 ? <RotateSecretButton destination={d} /> : null}
      </div>
      {any ? (
        <ul className="mt-3 divide-y divide-slate-100">
          {d.sharedSecret.set ? (
            <Secret title="Shared secret" badge="X-Signature">
              <StoredValue
                id="detail-shared-secret"
                label="Shared secret"
                state={{ stored: d.sharedSecret }}
                reveal={reveal("sharedSecret")}
              />
              <PreviousNotice which="sharedSecret" previous={d.previousSharedSecret} />
              <VerifyInCode scheme="xSignature" />
            </Secret>
          ) : null}
          {d.standardSecret.set ? (
            <Secret title="Signing secret" badge="Standard Webhooks">
              <StoredValue
                id="detail-standard-secret"
                label="Standard Webhooks secret"
                state={{ stored: d.standardSecret }}
                reveal={reveal("standardSecret")}
              />
              <PreviousNotice which="standardSecret" previous={d.previousStandardSecret} />
              <VerifyInCode scheme="standardWebhooks" />
            </Secret>
          ) : null}
          {d.auth ? (
            <Secret title="Client secret" badge="OAuth2">
              <StoredValue
                id="detail-auth-client-secret"
                label="Client secret"
                state={{ stored: d.auth.clientSecret }}
                reveal={reveal("authClientSecret")}
              />
              <PreviousNotice which="authClientSecret" previous={d.auth.previousClientSecret} />
            </Secret>
          ) : null}
          {d.tls ? (
            <Secret title="Client key" badge="mTLS">
              <StoredValue id="detail-tls-key" label="Client key" state={{ stored: d.tls.clientKey }} />
              <PreviousNotice which="tlsClientKey" previous={previousOf(d, "tlsClientKey")} oldLabel={d.tls.previous?.subject} />
            </Secret>
          ) : null}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-500">
          None: requests are unsigned.
          {canEdit ? (
            <>
              {" "}
              <Link href={`/destinations/${d.id}/edit#signing`} className="underline">
                Sign them
              </Link>{" "}
              with a shared secret or Standard Webhooks.
            </>
          ) : null}
        </p>
      )}
    </Card>
  );
}
