import "server-only";
import { describeCertificate } from "./client-tls";
import type { ClientTls } from "./dispatchers";
import { previousClientTls } from "./endpoint-auth";

/**
 * Which client certificate a destination presents during a rotation's grace (docs/endpoint-auth.md#rotation):
 * the new one, until a receiver refuses it; then, for REFUSAL_MEMORY_MS in this process, the previous
 * one, while its grace lasts; then the new one again. A refusal fails its attempt like any other
 * (the request may or may not have reached the receiver, so it is never sent again within the attempt:
 * nothing goes out twice unlogged); its retry presents the other certificate.
 */
export const REFUSAL_MEMORY_MS = 10 * 60_000;

/** Per destination: until when this process presents the previous certificate. */
const previousUntil = new Map<string, number>();

export type Presented = { tls: ClientTls; previous: boolean };

/** The certificate and key to present now. */
export function presentedTls(tls: ClientTls, now = Date.now()): Presented {
  const until = previousUntil.get(tls.destinationId);
  const previous = until !== undefined && until > now ? previousClientTls(tls.settings, now) : null;
  if (until !== undefined && !previous) previousUntil.delete(tls.destinationId);
  if (!previous) return { tls, previous: false };
  return {
    tls: { ...tls, slot: "previous", settings: { ...tls.settings, clientCert: previous.clientCert, clientKey: previous.clientKey } },
    previous: true,
  };
}

/**
 * The receiver refused the presented certificate: switch to the other one when a grace allows it.
 * Returns what the attempt log says next, or null when nothing changes.
 */
export function refused(tls: ClientTls, presented: Presented, now = Date.now()): string | null {
  if (presented.previous) {
    previousUntil.delete(tls.destinationId);
    return "the previous client certificate was refused too; the current one is presented next";
  }
  const previous = previousClientTls(tls.settings, now);
  if (!previous) return null;
  previousUntil.set(tls.destinationId, now + REFUSAL_MEMORY_MS);
  const subject = describeCertificate(previous.clientCert)?.subject ?? "the previous certificate";
  return `the previous client certificate (${subject}, in its rotation's grace until ${previous.expiresAt}) is presented next`;
}
