import "server-only";
import { buildPayload, serializePayload, type StoredMessage } from "./payload";
import type { KeyObject } from "node:crypto";
import { standardKey, standardSignatures, xSignatureKey, xSignatures } from "./signing";
import { isReservedHeader, isSendableHeader } from "./rules";
import { applyFieldLists, type FieldLists } from "../routing/field-lists";

export const USER_AGENT = "Eventrail.io/1.0";

/** What signing and headers need from a destination. */
export type SigningSettings = {
  headers: { name: string; value: string }[];
  sharedSecret: string | null;
  standardWebhooks: boolean;
  standardSecret: string | null;
  /**
   * The secrets before their last rotation and the end of their grace periods
   * (docs/signing.md#secret-rotation): each signs beside the new one until then; absent or ended, only
   * the new one signs.
   */
  previousSharedSecret?: string | null;
  previousSharedSecretExpiresAt?: Date | null;
  previousStandardSecret?: string | null;
  previousStandardSecretExpiresAt?: Date | null;
  /** the destination's drop and allow lists (docs/routing.md#field-lists); none leaves the body as built */
  fieldLists?: FieldLists | null;
};

/** The request as sent, and its headers as the attempt log shows them (maskHeaders). */
export type OutgoingRequest = { headers: Record<string, string>; body: string; loggedHeaders: Record<string, string> };

/**
 * Standard Webhooks `webhook-id` (docs/signing.md#standard-webhooks): from the message's row id, a
 * uuid, so it is unique across the workspace (two sources may send the same messageId) and the
 * same on every retry and every replay of the message (a receiver's dedupe drops what it already
 * processed; replays go only where the message did not succeed).
 */
export const webhookIdOf = (messageRowId: string) => `msg_${messageRowId}`;

/**
 * What every request to a destination shares: its static headers and ours, sent and as logged, and
 * its secrets as HMAC keys. The worker prepares it once per destination and batch, not once per
 * delivery (docs/webhooks.md#delivery-cost). Pure.
 */
export type PreparedSigning = {
  headers: Record<string, string>;
  loggedHeaders: Record<string, string>;
  sharedSecret: string | null;
  standardSecret: string | null;
  /** `headers` and `loggedHeaders` as [name, sent value, logged value], in order: each request's own objects are built from it */
  entries: [string, string, string][];
  sharedKey: KeyObject | null;
  standardKey: KeyObject | null;
  /** the previous secrets' keys while their grace periods last at `now` of prepareSigning, else null */
  previousSharedKey: KeyObject | null;
  previousStandardKey: KeyObject | null;
  fieldLists: FieldLists | null;
};

/**
 * `now` decides whether a rotation's grace period still lasts (docs/signing.md#secret-rotation): it is
 * checked when requests are prepared, from the stored end, so no job has to end it.
 */
export function prepareSigning(dest: SigningSettings, now: Date = new Date()): PreparedSigning {
  const headers: Record<string, string> = {};
  // Validation refuses reserved, connection-level and malformed headers; skipping them here too keeps
  // old rows from overriding ours or failing every delivery (docs/webhooks.md#settings).
  for (const h of dest.headers) if (isSendableHeader(h)) headers[h.name] = h.value;
  headers["content-type"] = "application/json";
  headers["user-agent"] = USER_AGENT;
  const loggedHeaders = maskHeaders(headers);
  const sharedSecret = dest.sharedSecret || null;
  // On when its secret is set (docs/signing.md#standard-webhooks): the flag mirrors the secret.
  const standardSecret = dest.standardSecret || null;
  return {
    headers,
    loggedHeaders,
    sharedSecret,
    standardSecret,
    entries: Object.keys(headers).map((name) => [name, headers[name], loggedHeaders[name]]),
    sharedKey: sharedSecret ? xSignatureKey(sharedSecret) : null,
    standardKey: standardSecret ? standardKey(standardSecret) : null,
    previousSharedKey: sharedSecret ? previousKey(dest.previousSharedSecret, dest.previousSharedSecretExpiresAt, now, xSignatureKey) : null,
    previousStandardKey: standardSecret
      ? previousKey(dest.previousStandardSecret, dest.previousStandardSecretExpiresAt, now, standardKey)
      : null,
    fieldLists: dest.fieldLists ?? null,
  };
}

/** A previous secret's key while its grace period lasts; ended, or none: null. */
function previousKey(
  secret: string | null | undefined,
  expiresAt: Date | null | undefined,
  now: Date,
  key: (secret: string) => KeyObject,
): KeyObject | null {
  return secret && expiresAt && expiresAt.getTime() > now.getTime() ? key(secret) : null;
}

/** The request for one message to one destination (the same for each of its URLs). Pure. */
export function buildRequest(
  dest: SigningSettings | PreparedSigning,
  message: StoredMessage,
  opts: {
    now: Date /** webhookIdOf(the message's row id) */;
    webhookId: string;
    /** the mapped body (request-shape.ts shapeRequest); the seed's body when absent */
    body?: string;
  },
): OutgoingRequest {
  const prepared = "loggedHeaders" in dest ? dest : prepareSigning(dest, opts.now);
  // Filter → drop → mapping → sign (docs/routing.md#order): the lists shape the body before it is signed.
  const body = opts.body ?? serializePayload(applyFieldLists(buildPayload(message), prepared.fieldLists));
  // Both objects are built up from empty, property by property: a spread copy of the prepared ones
  // with ours added costs several times as much per request (docs/decisions/0012-per-destination-preparation.md).
  const headers: Record<string, string> = {};
  const loggedHeaders: Record<string, string> = {};
  for (const [name, value, logged] of prepared.entries) {
    headers[name] = value;
    loggedHeaders[name] = logged;
  }
  // Ours are reserved names: the log shows them as sent.
  if (prepared.sharedKey) {
    const x = xSignatures(prepared.sharedKey, prepared.previousSharedKey, body);
    headers["x-signature"] = loggedHeaders["x-signature"] = x.signature;
    if (x.next !== null) headers["x-signature-next"] = loggedHeaders["x-signature-next"] = x.next;
  }
  if (prepared.standardKey) {
    const timestamp = Math.floor(opts.now.getTime() / 1000);
    headers["webhook-id"] = loggedHeaders["webhook-id"] = opts.webhookId;
    headers["webhook-timestamp"] = loggedHeaders["webhook-timestamp"] = String(timestamp);
    headers["webhook-signature"] = loggedHeaders["webhook-signature"] = standardSignatures(
      prepared.standardKey,
      prepared.previousStandardKey,
      opts.webhookId,
      timestamp,
      body,
    );
  }
  return { headers, body, loggedHeaders };
}

/**
 * The request headers as logged: the shared secret itself never appears in a request (only its
 * digest, which is shown so receivers can be debugged), and every custom header value is masked:
 * they are write-only like the secrets (docs/webhooks.md#attempt-log). Our own headers are shown.
 */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isReservedHeader(name) ? value : maskValue(value);
  return out;
}

// Long tokens keep their last 4 characters so a customer can tell which one was sent; short ones show nothing.
const maskValue = (v: string) => (v.length < 20 ? "••••" : `••••${v.slice(-4)}`);
