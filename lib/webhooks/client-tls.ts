import "server-only";
import crypto from "node:crypto";
import type { ClientTlsSettings } from "./endpoint-auth";

/**
 * Mutual TLS settings checked and described (docs/endpoint-auth.md#mutual-tls): a certificate and
 * key that parse and belong together, a CA that parses; the certificate's subject and end for the
 * DTO. The key is never described.
 */

/** Field errors keyed as the API keys them (`tls.clientKey`), or none. */
export function checkClientTls(s: ClientTlsSettings): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  let cert: crypto.X509Certificate | null = null;
  let key: crypto.KeyObject | null = null;
  try {
    cert = new crypto.X509Certificate(s.clientCert);
  } catch {
    errors["tls.clientCert"] = ["Not a certificate in PEM"];
  }
  try {
    key = crypto.createPrivateKey(s.clientKey);
  } catch {
    errors["tls.clientKey"] = ["Not an unencrypted private key in PEM"];
  }
  if (cert && key && !cert.checkPrivateKey(key)) errors["tls.clientKey"] = ["This key is not the client certificate's"];
  if (s.ca) {
    try {
      new crypto.X509Certificate(s.ca);
    } catch {
      errors["tls.ca"] = ["Not a certificate in PEM"];
    }
  }
  return Object.keys(errors).length > 0 ? errors : null;
}

/** "CN=client, O=Acme": a certificate's subject on one line. */
const oneLine = (dn: string) => dn.split("\n").filter(Boolean).join(", ");

/** The certificate's subject and end (ISO 8601); null when it no longer parses. */
export function describeCertificate(pem: string): { subject: string; expiresAt: string } | null {
  try {
    const cert = new crypto.X509Certificate(pem);
    return { subject: oneLine(cert.subject), expiresAt: new Date(cert.validTo).toISOString() };
  } catch {
    return null;
  }
}
