import { pool } from "../db";
import { CAPTURE_LIMITS } from "./schemas";

export type CaptureResult = { status: number; delayMs: number; requestId: string } | null;

/**
 * Reads a body up to `cap` bytes and counts (but drops) the rest, so a huge upload is recorded
 * as truncated instead of filling the database.
 */
export async function readCappedBody(body: ReadableStream<Uint8Array> | null, cap: number): Promise<{ bytes: Uint8Array; size: number; truncated: boolean }> {
  if (!body) return { bytes: new Uint8Array(), size: 0, truncated: false };
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (kept < cap) {
      const slice = value.byteLength <= cap - kept ? value : value.subarray(0, cap - kept);
      chunks.push(slice);
      kept += slice.byteLength;
    }
  }
  const bytes = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, size, truncated: size > kept };
}

/**
 * Stores one request to a capture URL and prunes the bin to its newest N requests, in one
 * statement. Returns how to answer, or null when the bin does not exist.
 */
export async function captureRequest(opts: { binId: string; req: Request }): Promise<CaptureResult> {
  const { binId, req } = opts;
  const bin = await pool().query<{ response_status: number; response_delay_ms: number }>(
    "SELECT response_status, response_delay_ms FROM capture_bins WHERE id = $1",
    [binId],
  );
  if (!bin.rows[0]) return null;

  const { bytes, size, truncated } = await readCappedBody(req.body, CAPTURE_LIMITS.bodyBytes);
  // A cut may split a multi-byte character; the decoder's replacement character marks it.
  const body = new TextDecoder("utf-8", { fatal: false }).decode(bytes).replaceAll("\u0000", "\uFFFD");
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    headers[name] = value;
  });

  const { rows } = await pool().query<{ id: string }>(
    `WITH ins AS (
       INSERT INTO captured_requests (bin_id, method, path, query, headers, body, body_size, truncated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING id
     ), pruned AS (
       DELETE FROM captured_requests
        WHERE bin_id = $1
          AND id <= (SELECT id FROM captured_requests WHERE bin_id = $1 ORDER BY id DESC OFFSET $9 - 1 LIMIT 1)
     )
     SELECT id::text AS id FROM ins`,
    [binId, req.method, url.pathname, url.search.replace(/^\?/, ""), JSON.stringify(headers), body, size, truncated, CAPTURE_LIMITS.requestsPerBin],
  );
  return { status: bin.rows[0].response_status, delayMs: bin.rows[0].response_delay_ms, requestId: rows[0].id };
}
