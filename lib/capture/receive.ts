import "server-only";
import { pool } from "../platform/db";
import { isBinId } from "./bins";
import { CAPTURE_LIMITS } from "./limits";

export type CaptureResult = { status: number; delayMs: number; requestId: string } | null;

/**
 * Reads a body up to `cap` bytes and counts (but drops) the rest, so a huge upload is recorded
 * as truncated instead of filling the database.
 */
export async function readCappedBody(
  body: ReadableStream<Uint8Array> | null,
  cap: number,
): Promise<{ bytes: Uint8Array; size: number; truncated: boolean }> {
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
 * A capture URL is a rolling window (docs/dashboard.md#capture-urls): past a limit its oldest requests
 * go. Within one bin (at most `requestsPerBin` + 1 rows, read newest first through its index):
 * beyond its newest `requestsPerBin`, or where the bytes from the newest down pass `binBytes`.
 */
const PRUNE_BIN = `
  DELETE FROM captured_requests d USING (
    SELECT id FROM (
      SELECT r.id, row_number() OVER (ORDER BY r.id DESC) AS nth, sum(octet_length(r.body)) OVER (ORDER BY r.id DESC) AS bytes
        FROM captured_requests r WHERE r.bin_id = $1
    ) ranked WHERE nth > $2 OR bytes > $3
  ) old WHERE d.id = old.id`;

/**
 * Then the workspace: its bins' `stored_bytes` (kept by triggers) say by how much it is over
 * `workspaceBytes`; its oldest requests go until that much is freed. Read oldest first and bounded,
 * so the cost follows what is dropped, not what is kept (docs/decisions/0024-capture-pruning.md);
 * whatever a bounded pass leaves over, the next capture frees.
 */
const WORKSPACE_EXCESS = `SELECT coalesce(sum(stored_bytes), 0) - $2 AS excess, array_agg(id) AS bins FROM capture_bins WHERE workspace_id = $1`;
const PRUNE_WORKSPACE = `
  DELETE FROM captured_requests WHERE id = ANY(ARRAY(
    SELECT id FROM (
      SELECT id, sum(bytes) OVER (ORDER BY id) - bytes AS freed_before FROM (
        SELECT r.id, octet_length(r.body) AS bytes FROM captured_requests r
         WHERE r.bin_id = ANY($1::text[]) ORDER BY r.id LIMIT 2000
      ) oldest
    ) o WHERE freed_before < $2))`;

/**
 * Stores one request to a capture URL, its body as the bytes received (up to `bodyBytes`), then drops
 * the oldest requests past the limits; the new one is always kept (one body is at most `bodyBytes`).
 * Returns how to answer, or null when the bin does not exist.
 */
export async function captureRequest(opts: { binId: string; req: Request }): Promise<CaptureResult> {
  const { binId, req } = opts;
  if (!isBinId(binId)) return null;
  const bin = await pool().query<{ workspace_id: string; response_status: number; response_delay_ms: number }>(
    "SELECT workspace_id, response_status, response_delay_ms FROM capture_bins WHERE id = $1",
    [binId],
  );
  if (!bin.rows[0]) return null;

  const { bytes, size, truncated } = await readCappedBody(req.body, CAPTURE_LIMITS.bodyBytes);
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    headers[name] = value;
  });

  const { rows } = await pool().query<{ id: string }>(
    `INSERT INTO captured_requests (bin_id, method, path, query, headers, body, body_size, truncated)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING id::text AS id`,
    [
      binId,
      req.method,
      url.pathname,
      url.search.replace(/^\?/, ""),
      JSON.stringify(headers),
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      size,
      truncated,
    ],
  );
  await pool().query(PRUNE_BIN, [binId, CAPTURE_LIMITS.requestsPerBin, CAPTURE_LIMITS.binBytes]);
  const over = await pool().query<{ excess: string; bins: string[] }>(WORKSPACE_EXCESS, [
    bin.rows[0].workspace_id,
    CAPTURE_LIMITS.workspaceBytes,
  ]);
  if (Number(over.rows[0].excess) > 0) await pool().query(PRUNE_WORKSPACE, [over.rows[0].bins, over.rows[0].excess]);
  return { status: bin.rows[0].response_status, delayMs: bin.rows[0].response_delay_ms, requestId: rows[0].id };
}
