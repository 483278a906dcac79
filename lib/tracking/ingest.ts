import "server-only";
import crypto from "node:crypto";
import { countTrackedMessages, countViolations } from "../metrics/tracking";
import { checkContentType, parseCallBody, readLimitedBody, type IncomingCall } from "./body";
import { AppError } from "../platform/errors";
import type { MessageType } from "./limits";
import { normaliseMessage, type NormalisedMessage, type Rejection } from "./normalise";
import { StaleSourceError, storeCall, type StoreResult } from "./persist";
import { recordRefusedCall } from "./source-calls";
import { toIso } from "./timestamps";
import { writeKeyInBody } from "./body-key";
import { forgetWriteKey, sourceByWriteKey, writeKeyFromAuthorization, type TrackingSource } from "./write-key";

/** The endpoints: one message type each, or a batch (`/v1/import` is the older clients' name for it). */
export type TrackingEndpoint = MessageType | "batch" | "import";

export type IngestResult = StoreResult & { rejected: { index: number; messageId: string | null; reason: string }[] };

/** A source and whether it came from the write-key cache (lib/tracking/write-key.ts): then it may be stale. */
type Authenticated = { source: TrackingSource; cached: boolean };

function refuse(writeKey: string | null, source: TrackingSource | null): TrackingSource {
  if (!writeKey) throw new AppError("unauthorized", "Missing write key: send it as the Basic auth user name or as writeKey in the body");
  if (!source) throw new AppError("unauthorized", "Unknown write key");
  if (!source.enabled) throw new AppError("unauthorized", "This write key's source is disabled");
  return source;
}

async function authenticate(writeKey: string | null): Promise<Authenticated> {
  const { source, cached } = writeKey ? await sourceByWriteKey(writeKey) : { source: null, cached: false };
  return { source: refuse(writeKey, source), cached };
}

/** The source as the database has it now, for answers that must not rest on the cache. */
async function authenticateFresh(writeKey: string): Promise<TrackingSource> {
  forgetWriteKey(writeKey);
  return refuse(writeKey, (await sourceByWriteKey(writeKey)).source);
}

/** How often a request is authenticated and routed again when its source keeps changing under it. */
const STALE_RETRIES = 3;

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
  let auth = headerKey ? await authenticate(headerKey) : null;

  let bytes: Buffer | null = null;
  let parsed: ReturnType<typeof parseCallBody>;
  try {
    checkContentType(req.headers.get("content-type"));
    bytes = await readLimitedBody(req);
    // A key in the body is checked before the body is parsed: an unauthenticated body costs one
    // scan, not a parse however deeply it nests (docs/tracking-api.md#authentication).
    auth ??= await authenticate(writeKeyInBody(bytes.toString("utf8")));
    parsed = parseCallBody(bytes, endpointType);
  } catch (err) {
    if (auth && headerKey && err instanceof AppError) {
      // A cached source may have lost its key meanwhile: that is a 401, not this error.
      const source = auth.cached ? await authenticateFresh(auth.source.writeKey) : auth.source;
      await recordRefusedCall({ sourceId: source.id, receivedAt, reason: err.message, body: bytes });
    }
    throw err;
  }

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
      nonFinite: parsed.nonFinite,
      clientAddress: req.clientAddress ?? null,
    });
    if (r.ok) accepted.push(r.message);
    else rejections.push(r.rejection);
  });

  // Only the messages' statement re-checks a cached source; a call without one stores (rejections)
  // or answers (a refused single call) on the source as the database has it now.
  let source = accepted.length === 0 && auth.cached ? await authenticateFresh(auth.source.writeKey) : auth.source;
  let stored: StoreResult;
  for (let attempt = 1; ; attempt++) {
    try {
      stored = await storeCall({ source, receivedAt, accepted, rejections });
      break;
    } catch (err) {
      if (!(err instanceof StaleSourceError)) throw err;
      if (attempt > STALE_RETRIES)
        throw new AppError("unavailable", "The source kept changing while the call was stored; nothing was stored");
      source = await authenticateFresh(source.writeKey);
    }
  }
  countTrackedMessages({ sourceId: source.id, accepted, rejected: rejections, duplicates: stored.duplicates });
  if (stored.judged.length > 0) countViolations(source.id, stored.judged);
  return { ...stored, rejected: rejections.map(({ index, messageId, reason }) => ({ index, messageId, reason })) };
}
