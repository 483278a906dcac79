import "server-only";
import crypto from "node:crypto";
import { countTrackedMessages } from "../metrics/tracking";
import { checkContentType, parseCallBody, readLimitedBody, type IncomingCall } from "./body";
import { AppError } from "../platform/errors";
import type { MessageType } from "./limits";
import { normaliseMessage, type NormalisedMessage, type Rejection } from "./normalise";
import { storeCall, type StoreResult } from "./persist";
import { recordRefusedCall } from "./source-calls";
import { toIso } from "./timestamps";
import { findSourceByWriteKey, writeKeyFromAuthorization, type TrackingSource } from "./write-key";

/** The endpoints: one message type each, or a batch (`/v1/import` is the older clients' name for it). */
export type TrackingEndpoint = MessageType | "batch" | "import";

export type IngestResult = StoreResult & { rejected: { index: number; messageId: string | null; reason: string }[] };

async function authenticate(writeKey: string | null): Promise<TrackingSource> {
  if (!writeKey) throw new AppError("unauthorized", "Missing write key: send it as the Basic auth user name or as writeKey in the body");
  const source = await findSourceByWriteKey(writeKey);
  if (!source) throw new AppError("unauthorized", "Unknown write key");
  if (!source.enabled) throw new AppError("unauthorized", "This write key's source is disabled");
  return source;
}

/**
 * A Tracking API call, from request to committed rows: authenticate, read and parse within the
 * limits, validate and normalise each message, then store what is valid in one transaction.
 * Throws AppError for a request refused as a whole.
 */
export async function ingestCall(opts: { req: IncomingCall; endpoint: TrackingEndpoint }): Promise<IngestResult> {
  const { req } = opts;
  const receivedAtMs = Date.now();
  const receivedAt = toIso(receivedAtMs);
  const endpointType = opts.endpoint === "batch" || opts.endpoint === "import" ? null : opts.endpoint;

  // A key in the Authorization header is checked before the body is read.
  const headerKey = writeKeyFromAuthorization(req.headers.get("authorization"));
  let source = headerKey ? await authenticate(headerKey) : null;

  let bytes: Buffer | null = null;
  let parsed: ReturnType<typeof parseCallBody>;
  try {
    checkContentType(req.headers.get("content-type"));
    bytes = await readLimitedBody(req);
    parsed = parseCallBody(bytes, endpointType);
  } catch (err) {
    if (source && err instanceof AppError) await recordRefusedCall({ sourceId: source.id, receivedAt, reason: err.message, body: bytes });
    throw err;
  }
  source ??= await authenticate(parsed.writeKey);

  const accepted: NormalisedMessage[] = [];
  const rejections: Rejection[] = [];
  parsed.messages.forEach((raw, index) => {
    const r = normaliseMessage({
      raw,
      index,
      endpointType,
      defaults: parsed.defaults,
      sentBytes: parsed.sentBytes?.[index] ?? null,
      receivedAt: { ms: receivedAtMs, iso: receivedAt },
      newMessageId: crypto.randomUUID,
    });
    if (r.ok) accepted.push(r.message);
    else rejections.push(r.rejection);
  });

  const stored = await storeCall({ source, receivedAt, accepted, rejections });
  countTrackedMessages({ sourceId: source.id, accepted, rejected: rejections, duplicates: stored.duplicates });
  return { ...stored, rejected: rejections.map(({ index, messageId, reason }) => ({ index, messageId, reason })) };
}
