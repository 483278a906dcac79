"use client";

import { Button } from "@/components/ui/button";
import { Field, inputClass } from "@/components/ui/field";
import type { DestinationDto } from "@/lib/destinations/contract";
import type { WriteOnlyState } from "./form-state";
import { StoredValue } from "./write-only-field";

/**
 * The destination form's client certificate fields (docs/endpoint-auth.md#mutual-tls): certificate,
 * key (write-only: kept unless replaced) and an optional private CA, each PEM pasted as text.
 */
export type TlsState = { on: boolean; clientCert: string; clientKey: WriteOnlyState; ca: string };

export const noTls = (): TlsState => ({ on: false, clientCert: "", clientKey: { action: "replace", value: "", stored: null }, ca: "" });

export const tlsFromDestination = (d: Pick<DestinationDto, "tls">): TlsState =>
  d.tls
    ? { on: true, clientCert: d.tls.clientCert, clientKey: { action: "keep", value: "", stored: d.tls.clientKey }, ca: d.tls.ca ?? "" }
    : noTls();

/** The API's tls: null when off; a kept key is left out, so the server keeps it. */
export function tlsToInput(s: TlsState) {
  if (!s.on) return null;
  return { clientCert: s.clientCert, clientKey: s.clientKey.action === "keep" ? undefined : s.clientKey.value, ca: s.ca };
}

/** The one rule the shared schema cannot see: a new setting needs its key. */
export const tlsKeyMissing = (s: TlsState) => s.on && s.clientKey.action !== "keep" && s.clientKey.value.trim() === "";

/** A PEM text area; the aria attributes a Field gives its control (its error or hint) pass on to the textarea. */
export function PemArea({
  id,
  value,
  onChange,
  placeholder,
  ...aria
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  placeholder: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}) {
  return (
    <textarea
      {...aria}
      id={id}
      rows={4}
      spellCheck={false}
      autoComplete="off"
      className={`${inputClass} font-mono text-xs`}
      placeholder={placeholder}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

export function TlsFields({
  value,
  errors,
  onChange,
}: {
  value: TlsState;
  errors: Record<string, string[] | undefined>;
  onChange: (next: TlsState) => void;
}) {
  const set = (patch: Partial<TlsState>) => onChange({ ...value, ...patch });
  const key = value.clientKey;
  return (
    <div className="space-y-4">
      <label className="flex items-start gap-2">
        <input type="checkbox" className="mt-0.5" checked={value.on} onChange={(e) => set({ on: e.target.checked })} />
        <span>
          <span className="block text-sm font-medium text-slate-900">Client certificate (mutual TLS)</span>
          <span className="block text-xs text-slate-500">Every connection to this endpoint presents this certificate.</span>
        </span>
      </label>
      {value.on ? (
        <div className="space-y-4">
          <Field
            label="Client certificate"
            htmlFor="dest-tls-cert"
            error={errors["tls.clientCert"]?.[0]}
            hint="PEM, -----BEGIN CERTIFICATE-----"
          >
            <PemArea
              id="dest-tls-cert"
              value={value.clientCert}
              placeholder="-----BEGIN CERTIFICATE-----"
              onChange={(clientCert) => set({ clientCert })}
            />
          </Field>
          {key.action === "keep" ? (
            <div className="space-y-1">
              <span className="block text-sm font-medium text-slate-700">Client key</span>
              <StoredValue id="dest-tls-key" label="Client key" state={key}>
                <Button
                  variant="secondary"
                  aria-label="Replace client key"
                  onClick={() => set({ clientKey: { ...key, action: "replace" } })}
                >
                  Replace
                </Button>
              </StoredValue>
            </div>
          ) : (
            <div className="space-y-1">
              <Field
                label="Client key"
                htmlFor="dest-tls-key"
                error={errors["tls.clientKey"]?.[0]}
                hint="The certificate's unencrypted private key in PEM. Write-only: it is never shown again."
              >
                <PemArea
                  id="dest-tls-key"
                  value={key.value}
                  placeholder="-----BEGIN PRIVATE KEY-----"
                  onChange={(v) => set({ clientKey: { ...key, value: v } })}
                />
              </Field>
              {key.stored ? (
                <Button variant="ghost" onClick={() => set({ clientKey: { ...key, action: "keep", value: "" } })}>
                  Keep the current client key
                </Button>
              ) : null}
            </div>
          )}
          <Field
            label="Private CA"
            htmlFor="dest-tls-ca"
            error={errors["tls.ca"]?.[0]}
            hint="Optional: a CA certificate in PEM that this destination alone trusts, besides the public ones."
          >
            <PemArea id="dest-tls-ca" value={value.ca} placeholder="-----BEGIN CERTIFICATE-----" onChange={(ca) => set({ ca })} />
          </Field>
        </div>
      ) : null}
    </div>
  );
}

/** "CN=client · expires 2027-01-31", and the CA the destination trusts, for the destination page. */
export function describeTls(tls: NonNullable<DestinationDto["tls"]>): string {
  const expires = tls.expiresAt.slice(0, 10);
  return `${tls.subject} · expires ${expires}${tls.caSubject ? ` · trusts ${tls.caSubject}` : ""}`;
}
