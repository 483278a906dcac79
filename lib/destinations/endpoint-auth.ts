import "server-only";
import { Prisma } from "../platform/generated/prisma/client";
import { AppError } from "../platform/errors";
import { checkClientTls, describeCertificate } from "../webhooks/client-tls";
import {
  previousClientSecret,
  previousClientTls,
  storedAuth,
  storedTls,
  type ClientTlsSettings,
  type EndpointAuth,
} from "../webhooks/endpoint-auth";
import { writeOnlyHint, type DestinationDto, type OAuth2Input, type TlsInput } from "./contract";

/**
 * A destination's endpoint authentication (docs/endpoint-auth.md) as its rows store it, its DTO shows
 * it and the audit log compares it: the client secret and key are write-only everywhere.
 */

/** Endpoint authentication as the audit log compares it: the client secret and key apart, as SECRET_FIELDS. */
export const endpointAuthAuditView = (a: EndpointAuth | null, t: ClientTlsSettings | null) => ({
  auth: a && { ...a, clientSecret: undefined, previousClientSecret: undefined, previousClientSecretExpiresAt: undefined },
  authClientSecret: a?.clientSecret ?? null,
  tls: t && { clientCert: t.clientCert, ca: t.ca },
  tlsClientKey: t?.clientKey ?? null,
});

/**
 * The auth setting to store from an input and the stored one (docs/endpoint-auth.md#oauth2): a client
 * secret left out keeps the stored one; none at all is a 422 on `auth.clientSecret`.
 */
export function authColumn(input: OAuth2Input | null, current: EndpointAuth | null): Prisma.InputJsonObject | typeof Prisma.DbNull {
  if (input === null) return Prisma.DbNull;
  const clientSecret = input.clientSecret ?? current?.clientSecret;
  if (!clientSecret)
    throw new AppError("validation_failed", "Some fields are invalid", { "auth.clientSecret": ["Enter the client secret"] });
  const auth: EndpointAuth = {
    type: "oauth2",
    tokenUrl: input.tokenUrl,
    clientId: input.clientId,
    clientSecret,
    scope: input.scope,
    audience: input.audience,
    method: input.method,
  };
  // A rotation's grace survives an edit that keeps the secret; a new secret typed in the form replaces it at once.
  const previous = current && clientSecret === current.clientSecret ? previousClientSecret(current) : null;
  if (previous) Object.assign(auth, { previousClientSecret: previous.secret, previousClientSecretExpiresAt: previous.expiresAt });
  return auth;
}

/**
 * The mutual TLS setting to store (docs/endpoint-auth.md#mutual-tls): a key left out keeps the stored
 * one; none at all, or a certificate, key or CA that does not parse or match, is a 422 at its field.
 */
export function tlsColumn(input: TlsInput | null, current: ClientTlsSettings | null): Prisma.InputJsonObject | typeof Prisma.DbNull {
  if (input === null) return Prisma.DbNull;
  const clientKey = input.clientKey ?? current?.clientKey;
  if (!clientKey) throw new AppError("validation_failed", "Some fields are invalid", { "tls.clientKey": ["Paste the client key"] });
  const tls: ClientTlsSettings = { clientCert: input.clientCert, clientKey, ca: input.ca };
  const errors = checkClientTls(tls);
  if (errors) throw new AppError("validation_failed", "Some fields are invalid", errors);
  // A rotation's grace survives an edit that keeps the certificate and key (docs/endpoint-auth.md#rotation).
  const previous = current && current.clientCert === tls.clientCert && current.clientKey === clientKey ? previousClientTls(current) : null;
  if (previous)
    Object.assign(tls, {
      previousClientCert: previous.clientCert,
      previousClientKey: previous.clientKey,
      previousExpiresAt: previous.expiresAt,
    });
  return tls;
}

/** The certificate, its subject and end; the key only as set. */
export function tlsDto(raw: unknown): DestinationDto["tls"] {
  const t = storedTls(raw);
  if (!t) return null;
  const cert = describeCertificate(t.clientCert);
  return {
    clientCert: t.clientCert,
    subject: cert?.subject ?? "(does not parse)",
    expiresAt: cert?.expiresAt ?? new Date(0).toISOString(),
    clientKey: { set: true, last4: null },
    ca: t.ca,
    caSubject: t.ca ? (describeCertificate(t.ca)?.subject ?? null) : null,
    previous: previousOf(t),
  };
}

/** The certificate a rotation with grace replaced, by subject, and when its grace ends. */
function previousOf(t: ClientTlsSettings): { subject: string; expiresAt: string } | null {
  const previous = previousClientTls(t);
  if (!previous) return null;
  return { subject: describeCertificate(previous.clientCert)?.subject ?? "(does not parse)", expiresAt: previous.expiresAt };
}

export function authDto(raw: unknown): DestinationDto["auth"] {
  const a = storedAuth(raw);
  if (!a) return null;
  const previous = previousClientSecret(a);
  return {
    type: a.type,
    tokenUrl: a.tokenUrl,
    clientId: a.clientId,
    clientSecret: writeOnlyHint(a.clientSecret),
    scope: a.scope,
    audience: a.audience,
    method: a.method,
    previousClientSecret: previous && { last4: writeOnlyHint(previous.secret).last4, expiresAt: previous.expiresAt },
  };
}
