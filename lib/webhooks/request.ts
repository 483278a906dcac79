import "server-only";
import { buildPayload, serializePayload, type StoredMessage } from "./payload";
import { standardWebhooksHeaders, xSignature } from "./signing";
import { isReservedHeader, isSendableHeader } from "./rules";

export const USER_AGENT = "Eventrail.io/1.0";

/** What signing and headers need from a destination. */
export type SigningSettings = {
  headers: { name: string; value: string }[];
  sharedSecret: string | null;
  standardWebhooks: boolean;
  standardSecret: string | null;
};

export type OutgoingRequest = { headers: Record<string, string>; body: string };

/**
 * Standard Webhooks `webhook-id` (docs/webhooks.md#standard-webhooks): from the message's row id, a
 * uuid, so it is unique across the workspace (two sources may send the same messageId) and the
 * same on every retry and every replay of the message (a receiver's dedupe drops what it already
 * processed; replays go only where the message did not succeed).
 */
export const webhookIdOf = (messageRowId: string) => `msg_${messageRowId}`;

/** The request for one message to one destination (the same for each of its URLs). Pure. */
export function buildRequest(
  dest: SigningSettings,
  message: StoredMessage,
  opts: { now: Date /** webhookIdOf(the message's row id) */; webhookId: string },
): OutgoingRequest {
  const body = serializePayload(buildPayload(message));
  const headers: Record<string, string> = {};
  // Validation refuses reserved, connection-level and malformed headers; skipping them here too keeps
  // old rows from overriding ours or failing every delivery (docs/webhooks.md#settings).
  for (const h of dest.headers) if (isSendableHeader(h)) headers[h.name] = h.value;
  headers["content-type"] = "application/json";
  headers["user-agent"] = USER_AGENT;
  if (dest.sharedSecret) headers["x-signature"] = xSignature(dest.sharedSecret, body);
  if (dest.standardWebhooks && dest.standardSecret) {
    Object.assign(
      headers,
      standardWebhooksHeaders({
        secret: dest.standardSecret,
        id: opts.webhookId,
        timestampSeconds: Math.floor(opts.now.getTime() / 1000),
        body,
      }),
    );
  }
  return { headers, body };
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
