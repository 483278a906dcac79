import "server-only";
import zlib from "node:zlib";
import { AppError } from "../platform/errors";
import type { HeaderLookup } from "../platform/request-id";

/**
 * A Tracking API request as ingest reads it: a Web Request (Next's route handlers) or the ingest
 * server's view of a node:http request (lib/ingest/server.ts) — headers and a body stream.
 */
export type IncomingCall = {
  headers: HeaderLookup;
  body: ReadableStream<Uint8Array> | null;
  /** The client's address under the trusted-proxy rule (docs/operations.md#client-addresses); becomes context.ip when a call has none. */
  clientAddress?: string;
};
import { MAX_BATCH_MESSAGES, MAX_BODY_BYTES, MAX_MESSAGE_BYTES, kb, type MessageType } from "./limits";
import { sentBatchMessageBytes } from "./sent-sizes";
import { describeValue, isPlainObject, type BatchDefaults } from "./normalise";
import { inStorableRange, parseIsoTimestamp, toIso } from "./timestamps";
import { findNonFinite, parseExactJson, stringifyExact } from "../platform/exact-json";

const tooLarge = (bytes?: number) =>
  new AppError("body_too_large", `Request body${bytes ? ` is ${kb(bytes)}; it` : ""} exceeds the limit of 500 KB per request`);

/**
 * Media types real clients send: application/json (Segment's libraries), text/plain (browser
 * beacons, to skip CORS preflight), none at all, and `+json` variants. Anything else (forms,
 * XML, multipart) is not a tracking call.
 */
export function checkContentType(header: string | null): void {
  if (header === null || header.trim() === "") return;
  const media = header.split(";")[0].trim().toLowerCase();
  if (media === "application/json" || media === "text/plain" || media.endsWith("+json")) return;
  throw new AppError("unsupported_content_type", `Content-Type ${JSON.stringify(media)} is not supported; send application/json`);
}

/**
 * Reads the body, refusing it past 500 KB by Content-Length or by the bytes actually read
 * (reading stops there). A gzip body is limited before and after inflating.
 */
export async function readLimitedBody(req: IncomingCall): Promise<Buffer> {
  const encoding = (req.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (encoding !== "" && encoding !== "identity" && encoding !== "gzip" && encoding !== "x-gzip") {
    throw new AppError("unsupported_encoding", `Content-Encoding ${JSON.stringify(encoding)} is not supported; send identity or gzip`);
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge(declared);

  const chunks: Buffer[] = [];
  let total = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  }
  const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
  if (encoding !== "gzip" && encoding !== "x-gzip") return raw;
  try {
    return zlib.gunzipSync(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
    throw new AppError("invalid_body", "Body is declared gzip but is not valid gzip data");
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What a request carries: its messages (still raw), the batch-wide defaults and the body's write
 * key. `sentBytes[i]` is message i's size as sent (sent-sizes.ts), known only when the body is over
 * 32 KB; null when no message in it can be over the limit. `nonFinite`: some number in the body is
 * past a double's range (a NonFiniteNumber, lib/platform/exact-json.ts), so messages are searched for it.
 */
export type ParsedCall = {
  writeKey: string | null;
  messages: unknown[];
  defaults: BatchDefaults;
  sentBytes: number[] | null;
  nonFinite: boolean;
};

function batchTimestamp(body: Record<string, unknown>, key: string): number | null {
  const v = body[key];
  if (v === undefined || v === null || v === "") return null;
  const ms = typeof v === "string" ? parseIsoTimestamp(v) : null;
  if (ms === null) throw new AppError("invalid_body", `${key} ${JSON.stringify(v).slice(0, 40)} is not a valid ISO 8601 date-time`);
  // The batch's own sentAt applies to every message in it, so it refuses the batch (a 400, not a 500).
  if (!inStorableRange(ms))
    throw new AppError("invalid_body", `${key} ${JSON.stringify(v).slice(0, 40)} is outside the years 0001–9999 (UTC)`);
  return ms;
}

function batchObject(body: Record<string, unknown>, key: string, nonFinite: boolean): Record<string, unknown> | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) throw new AppError("invalid_body", `${key} must be a JSON object, got ${describeValue(v)}`);
  const bad = nonFinite ? findNonFinite(v, key) : null;
  if (bad) throw new AppError("invalid_body", `${bad.path} is ${bad.literal.slice(0, 40)}, which is not a finite number`);
  return v;
}

/** Each message's bytes as sent; JSON.stringify's measure if the scan disagrees with JSON.parse (a duplicated `batch` key). */
function sentSizes(text: string, messages: unknown[]): number[] {
  const sizes = sentBatchMessageBytes(text);
  if (sizes.length === messages.length) return sizes;
  return messages.map((m) => {
    try {
      return Buffer.byteLength(stringifyExact(m) ?? "", "utf8");
    } catch {
      return 0; // too deep to serialize: normalise.ts rejects it for its depth
    }
  });
}

/** Parses a body: one message for /v1/<type>, `{batch: [...]}` for /v1/batch and /v1/import. */
export function parseCallBody(bytes: Buffer, endpointType: MessageType | null): ParsedCall {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError("invalid_utf8", "Body is not valid UTF-8");
  }
  let body: unknown;
  let nonFinite: boolean;
  try {
    ({ value: body, nonFinite } = parseExactJson(text));
  } catch (err) {
    const detail = err instanceof Error ? err.message.slice(0, 120) : "";
    throw new AppError("invalid_json", `Body is not valid JSON${detail ? `: ${detail}` : ""}`);
  }
  if (!isPlainObject(body)) throw new AppError("invalid_body", `Body must be a JSON object, got ${describeValue(body)}`);
  const writeKey = typeof body.writeKey === "string" && body.writeKey !== "" ? body.writeKey : null;

  if (endpointType !== null) {
    const { writeKey: _key, ...message } = body;
    return {
      writeKey,
      messages: [message],
      defaults: { context: null, integrations: null, sentAt: null, sentAtIso: null },
      sentBytes: bytes.length > MAX_MESSAGE_BYTES ? [bytes.length] : null,
      nonFinite,
    };
  }
  const batch = body.batch;
  // analytics-go sends `"batch": null` for an empty flush.
  if (batch !== null && !Array.isArray(batch)) {
    throw new AppError(
      "invalid_body",
      batch === undefined ? "Body must have a batch array" : `batch must be an array, got ${describeValue(batch)}`,
    );
  }
  const messages = batch ?? [];
  if (messages.length > MAX_BATCH_MESSAGES) {
    throw new AppError("too_many_messages", `Batch has ${messages.length.toLocaleString("en-US")} messages; the limit is 2,500 per batch`);
  }
  const sentAt = batchTimestamp(body, "sentAt");
  return {
    writeKey,
    messages,
    sentBytes: bytes.length > MAX_MESSAGE_BYTES ? sentSizes(text, messages) : null,
    nonFinite,
    defaults: {
      context: batchObject(body, "context", nonFinite),
      integrations: batchObject(body, "integrations", nonFinite),
      sentAt,
      sentAtIso: sentAt === null ? null : toIso(sentAt),
    },
  };
}
