import { buildPayload, serializePayload, type StoredMessage } from "./payload";
import { standardWebhooksHeaders, xSignature } from "./signing";
import { isReservedHeader } from "./rules";

export const USER_AGENT = "Eventrail.io/1.0";

/** What signing and headers need from a destination. */
export type SigningSettings = {
  headers: { name: string; value: string }[];
  sharedSecret: string | null;
  standardWebhooks: boolean;
  standardSecret: string | null;
};

export type OutgoingRequest = { headers: Record<string, string>; body: string };

/** The request for one message to one destination (the same for each of its URLs). Pure. */
export function buildRequest(dest: SigningSettings, message: StoredMessage, now: Date): OutgoingRequest {
  const body = serializePayload(buildPayload(message));
  const headers: Record<string, string> = {};
  // Reserved names are refused at validation; skipping them here keeps old rows from overriding ours.
  for (const h of dest.headers) if (!isReservedHeader(h.name)) headers[h.name] = h.value;
  headers["content-type"] = "application/json";
  headers["user-agent"] = USER_AGENT;
  if (dest.sharedSecret) headers["x-signature"] = xSignature(dest.sharedSecret, body);
  if (dest.standardWebhooks && dest.standardSecret) {
    Object.assign(
      headers,
      standardWebhooksHeaders({ secret: dest.standardSecret, id: message.messageId, timestampSeconds: Math.floor(now.getTime() / 1000), body }),
    );
  }
  return { headers, body };
}

/** Custom header names whose values look like credentials; their values are masked in the attempt log. */
const SECRET_NAME = /auth|token|key|secret|pass|cookie|session|credential|api/i;

/**
 * The request headers as logged: the shared secret itself never appears in a request (only its
 * digest, which is shown so receivers can be debugged); custom header values that look like
 * credentials (Authorization, *token*, *key*, *secret*, …) are masked.
 */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = !isReservedHeader(name) && SECRET_NAME.test(name) ? maskValue(value) : value;
  }
  return out;
}

// Long tokens keep their last 4 characters so a customer can tell which one was sent; short ones show nothing.
const maskValue = (v: string) => (v.length < 20 ? "••••" : `••••${v.slice(-4)}`);
