/**
 * Endpoint authentication (docs/endpoint-auth.md): the stored setting and how it is read back. Pure;
 * browser-safe (the contract and the form use it).
 */
import { z } from "zod";

/** How the client authenticates at the token endpoint (RFC 6749 §2.3.1). */
export const TOKEN_AUTH_METHODS = ["client_secret_basic", "client_secret_post"] as const;
export type TokenAuthMethod = (typeof TOKEN_AUTH_METHODS)[number];

/** OAuth 2.0 client credentials as stored: the client secret in full (write-only everywhere it is shown). */
export const storedOAuth2Schema = z.object({
  type: z.literal("oauth2"),
  tokenUrl: z.string(),
  clientId: z.string(),
  clientSecret: z.string().min(1),
  scope: z.string().nullable(),
  audience: z.string().nullable(),
  method: z.enum(TOKEN_AUTH_METHODS),
  /**
   * The client secret before a rotation with grace (docs/endpoint-auth.md#rotation): tried when the
   * token endpoint refuses the current one as a client, until its end (ISO 8601); ignored after.
   */
  previousClientSecret: z.string().min(1).optional(),
  previousClientSecretExpiresAt: z.string().optional(),
});
export type OAuth2Settings = z.infer<typeof storedOAuth2Schema>;

/** The previous client secret while its grace lasts, else null. */
export function previousClientSecret(a: OAuth2Settings, now = Date.now()): { secret: string; expiresAt: string } | null {
  if (!a.previousClientSecret || !a.previousClientSecretExpiresAt) return null;
  const end = Date.parse(a.previousClientSecretExpiresAt);
  return Number.isFinite(end) && end > now ? { secret: a.previousClientSecret, expiresAt: new Date(end).toISOString() } : null;
}
export type EndpointAuth = OAuth2Settings;

/** The stored column read back: null, or a value that no longer parses, sends no Authorization of ours. */
export function storedAuth(raw: unknown): EndpointAuth | null {
  if (raw === null || raw === undefined) return null;
  const parsed = storedOAuth2Schema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** The Authorization header as the attempt log and copy-as-cURL show it: the token never. */
export const MASKED_BEARER = "Bearer ****";

/** Mutual TLS as stored (docs/endpoint-auth.md#mutual-tls): PEM texts, the key in full (write-only everywhere it is shown). */
export const storedTlsSchema = z.object({
  clientCert: z.string().min(1),
  clientKey: z.string().min(1),
  ca: z.string().nullable(),
  /**
   * The certificate and key before a rotation with grace (docs/endpoint-auth.md#rotation): presented
   * while the receiver refuses the current ones, until the end (ISO 8601); ignored after.
   */
  previousClientCert: z.string().min(1).optional(),
  previousClientKey: z.string().min(1).optional(),
  previousExpiresAt: z.string().optional(),
});
export type ClientTlsSettings = z.infer<typeof storedTlsSchema>;

/** The previous certificate and key while their grace lasts, else null. */
export function previousClientTls(
  t: ClientTlsSettings,
  now = Date.now(),
): { clientCert: string; clientKey: string; expiresAt: string } | null {
  if (!t.previousClientCert || !t.previousClientKey || !t.previousExpiresAt) return null;
  const end = Date.parse(t.previousExpiresAt);
  return Number.isFinite(end) && end > now
    ? { clientCert: t.previousClientCert, clientKey: t.previousClientKey, expiresAt: new Date(end).toISOString() }
    : null;
}

/** The stored column read back: null, or a value that no longer parses, sends no client certificate. */
export function storedTls(raw: unknown): ClientTlsSettings | null {
  if (raw === null || raw === undefined) return null;
  const parsed = storedTlsSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
