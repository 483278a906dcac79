import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import { pool, withTransaction } from "../platform/db";
import { notFound } from "../platform/errors";
import { assertBinInWorkspace } from "./bins";
import { maskCapturedHeaders } from "./mask";
import type { CapturedRequestDto, CapturedRequestSummaryDto, CapturedRequestsQuery } from "./contract";
import { CAPTURE_LIMITS } from "./limits";

/**
 * The read side of captured requests (docs/dashboard.md#capture-urls). A list never reads whole
 * bodies: Postgres hands back only the first CAPTURE_LIMITS.previewBytes of each (a substring of a
 * bytea, detoasted only as far as it needs); one body is read at a time, when a request is opened.
 */

type SummaryRow = {
  id: string;
  method: string;
  path: string;
  query: string;
  content_type: string | null;
  body_size: number;
  stored_size: number;
  truncated: boolean;
  preview: Buffer;
  x_signature: boolean;
  webhook_signature: boolean;
  received_at: Date;
};
type DetailRow = SummaryRow & { headers: Record<string, string>; body: Buffer };

// id::text keeps bigint ids exact in JSON; ORDER BY names the table's column, not the text alias.
const SUMMARY_COLUMNS = `r.id::text AS id, r.method, r.path, r.query, r.headers ->> 'content-type' AS content_type,
  r.body_size, octet_length(r.body) AS stored_size, r.truncated, substring(r.body FROM 1 FOR ${CAPTURE_LIMITS.previewBytes}) AS preview,
  r.headers ? 'x-signature' AS x_signature, r.headers ? 'webhook-signature' AS webhook_signature, r.received_at`;

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");

const toSummary = (r: SummaryRow): CapturedRequestSummaryDto => ({
  id: r.id,
  method: r.method,
  path: r.path,
  query: r.query,
  contentType: r.content_type,
  bodySize: r.body_size,
  truncated: r.truncated,
  preview: utf8(r.preview),
  previewCut: r.stored_size > r.preview.byteLength,
  signed: { xSignature: r.x_signature, standardWebhooks: r.webhook_signature },
  receivedAt: r.received_at.toISOString(),
});

/** Text when the bytes are UTF-8 (what the page shows and copies), base64 otherwise, so nothing is lost either way. */
export function encodeBody(bytes: Uint8Array): Pick<CapturedRequestDto, "body" | "bodyEncoding"> {
  try {
    return { body: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), bodyEncoding: "utf8" };
  } catch {
    return { body: Buffer.from(bytes).toString("base64"), bodyEncoding: "base64" };
  }
}

/** Newest first; with `after`, only requests that arrived since (the page polls with its newest id). */
export async function listCapturedRequests(
  opts: { workspaceId: string; binId: string } & CapturedRequestsQuery,
): Promise<CapturedRequestSummaryDto[]> {
  await assertBinInWorkspace(opts.workspaceId, opts.binId);
  const { rows } = await pool().query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS}
       FROM captured_requests r
      WHERE r.bin_id = $1 AND ($2::bigint IS NULL OR r.id > $2::bigint)
      ORDER BY r.id DESC
      LIMIT $3`,
    [opts.binId, opts.after ?? null, opts.limit],
  );
  return rows.map(toSummary);
}

/** The raw request, for the signature check: headers, body bytes as received, whether the body was cut. */
export async function loadCapturedRequest(opts: {
  workspaceId: string;
  binId: string;
  requestId: string;
}): Promise<{ row: DetailRow; dto: CapturedRequestDto }> {
  await assertBinInWorkspace(opts.workspaceId, opts.binId);
  // A request id is a bigint: anything else (or past 18 digits) names no request and is not looked up.
  if (!/^\d{1,18}$/.test(opts.requestId)) throw notFound("Captured request");
  const { rows } = await pool().query<DetailRow>(
    `SELECT ${SUMMARY_COLUMNS}, r.headers, r.body FROM captured_requests r WHERE r.bin_id = $1 AND r.id = $2`,
    [opts.binId, opts.requestId],
  );
  const row = rows[0];
  if (!row) throw notFound("Captured request");
  return { row, dto: { ...toSummary(row), headers: row.headers, ...encodeBody(row.body) } };
}

/**
 * One captured request as a caller sees it: header values in full only to one who may reveal a
 * destination's write-only values (`revealHeaders`: the reveal endpoint's access), masked otherwise.
 */
export async function getCapturedRequest(opts: {
  workspaceId: string;
  binId: string;
  requestId: string;
  revealHeaders: boolean;
}): Promise<CapturedRequestDto> {
  const { dto } = await loadCapturedRequest(opts);
  return opts.revealHeaders ? dto : { ...dto, headers: maskCapturedHeaders(dto.headers) };
}

export async function clearCapturedRequests(opts: { workspaceId: string; actor: Actor; binId: string }): Promise<void> {
  await assertBinInWorkspace(opts.workspaceId, opts.binId);
  await withTransaction(async (client) => {
    await client.query("DELETE FROM captured_requests WHERE bin_id = $1", [opts.binId]);
    await recordAudit(client, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "capture_bin.clear",
      resourceType: "capture_bin",
      resourceId: opts.binId,
    });
  });
}
