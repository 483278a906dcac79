"use client";

import type { DestinationDto } from "@/lib/destinations/contract";
import { TOKEN_AUTH_METHODS, type TokenAuthMethod } from "@/lib/webhooks/endpoint-auth";
import { Field, Input, inputClass } from "@/components/ui/field";
import type { WriteOnlyState } from "./form-state";
import { METHOD_LABELS } from "./describe-shape";
import { WriteOnlyField } from "./write-only-field";

/**
 * The destination form's "Authentication" section (docs/endpoint-auth.md#oauth2): off, or OAuth 2.0
 * client credentials, whose client secret is write-only like every secret (kept unless replaced).
 */
export type AuthState = {
  on: boolean;
  tokenUrl: string;
  clientId: string;
  clientSecret: WriteOnlyState;
  scope: string;
  audience: string;
  method: TokenAuthMethod;
};

export const noAuth = (): AuthState => ({
  on: false,
  tokenUrl: "",
  clientId: "",
  clientSecret: { action: "replace", value: "", stored: null },
  scope: "",
  audience: "",
  method: "client_secret_basic",
});

export const authFromDestination = (d: Pick<DestinationDto, "auth">): AuthState =>
  d.auth
    ? {
        on: true,
        tokenUrl: d.auth.tokenUrl,
        clientId: d.auth.clientId,
        clientSecret: d.auth.clientSecret.set
          ? { action: "keep", value: "", stored: d.auth.clientSecret }
          : { action: "replace", value: "", stored: null },
        scope: d.auth.scope ?? "",
        audience: d.auth.audience ?? "",
        method: d.auth.method,
      }
    : noAuth();

/** The API's auth: null when off; a kept secret is left out, so the server keeps it. */
export function authToInput(s: AuthState) {
  if (!s.on) return null;
  return {
    type: "oauth2" as const,
    tokenUrl: s.tokenUrl,
    clientId: s.clientId,
    clientSecret: s.clientSecret.action === "keep" ? undefined : s.clientSecret.value,
    scope: s.scope,
    audience: s.audience,
    method: s.method,
  };
}

/** The one rule the shared schema cannot see: a new setting needs its client secret. */
export const authSecretMissing = (s: AuthState) => s.on && s.clientSecret.action !== "keep" && s.clientSecret.value === "";

export function AuthFields({
  value,
  errors,
  onChange,
  reveal,
}: {
  value: AuthState;
  errors: Record<string, string[] | undefined>;
  onChange: (next: AuthState) => void;
  /** Asks the server for the stored client secret (admins; audited). */
  reveal?: () => Promise<string>;
}) {
  const set = (patch: Partial<AuthState>) => onChange({ ...value, ...patch });
  return (
    <div className="space-y-4">
      <label className="flex items-start gap-2">
        <input type="checkbox" className="mt-0.5" checked={value.on} onChange={(e) => set({ on: e.target.checked })} />
        <span>
          <span className="block text-sm font-medium text-slate-900">OAuth 2.0 client credentials</span>
          <span className="block text-xs text-slate-500">
            Each request carries Authorization: Bearer with a token from your authorization server, fetched and renewed by Eventrail. The
            request log shows it as Bearer ****.
          </span>
        </span>
      </label>
      {value.on ? (
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="sm:col-span-2">
            <Field label="Token URL" htmlFor="dest-auth-token-url" error={errors["auth.tokenUrl"]?.[0]}>
              <Input
                id="dest-auth-token-url"
                type="url"
                autoComplete="off"
                spellCheck={false}
                placeholder="https://auth.example.com/oauth/token"
                value={value.tokenUrl}
                onChange={(e) => set({ tokenUrl: e.target.value })}
              />
            </Field>
          </div>
          <Field label="Client id" htmlFor="dest-auth-client-id" error={errors["auth.clientId"]?.[0]}>
            <Input
              id="dest-auth-client-id"
              autoComplete="off"
              spellCheck={false}
              value={value.clientId}
              onChange={(e) => set({ clientId: e.target.value })}
            />
          </Field>
          <div>
            <WriteOnlyField
              id="dest-auth-client-secret"
              label="Client secret"
              state={value.clientSecret}
              error={errors["auth.clientSecret"]?.[0]}
              hint="Issued by your authorization server. Used exactly as entered."
              removable={false}
              reveal={reveal}
              onChange={(clientSecret) => set({ clientSecret })}
            />
          </div>
          <Field label="Scope" htmlFor="dest-auth-scope" error={errors["auth.scope"]?.[0]} hint="Optional, space-separated.">
            <Input
              id="dest-auth-scope"
              autoComplete="off"
              spellCheck={false}
              value={value.scope}
              onChange={(e) => set({ scope: e.target.value })}
            />
          </Field>
          <Field
            label="Audience"
            htmlFor="dest-auth-audience"
            error={errors["auth.audience"]?.[0]}
            hint="Optional: the API the token is for (sent as audience, and as resource when it is a URI)."
          >
            <Input
              id="dest-auth-audience"
              autoComplete="off"
              spellCheck={false}
              value={value.audience}
              onChange={(e) => set({ audience: e.target.value })}
            />
          </Field>
          <Field label="Client authentication" htmlFor="dest-auth-method" error={errors["auth.method"]?.[0]}>
            <select
              id="dest-auth-method"
              className={inputClass}
              value={value.method}
              onChange={(e) => set({ method: e.target.value as TokenAuthMethod })}
            >
              {TOKEN_AUTH_METHODS.map((m) => (
                <option key={m} value={m}>
                  {METHOD_LABELS[m]}
                </option>
              ))}
            </select>
          </Field>
        </div>
      ) : null}
    </div>
  );
}

/** The setting as the destination page says it: "OAuth 2.0 client credentials at auth.example.com", or none. */
export function describeAuth(auth: DestinationDto["auth"]): string {
  if (!auth) return "none";
  let host = auth.tokenUrl;
  try {
    host = new URL(auth.tokenUrl).host;
  } catch {}
  return `OAuth 2.0 client credentials from ${host}, client ${auth.clientId}${auth.scope ? `, scope ${auth.scope}` : ""}${auth.audience ? `, audience ${auth.audience}` : ""}`;
}
