import "server-only";
import { pool } from "../platform/db";
import { AppError } from "../platform/errors";
import type { StoredMessage } from "../webhooks/payload";
import { maskHeaders, USER_AGENT } from "../webhooks/request";
import { prepareShape, shapeRequest } from "../webhooks/request-shape";
import type { MappingPreviewInput, MappingPreviewResult } from "./contract";

type Row = {
  message_id: string;
  type: string;
  event: string | null;
  user_id: string | null;
  anonymous_id: string | null;
  timestamp: string;
  received_at: string;
  sent_at: string | null;
  payload: Record<string, unknown> | null;
};

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The requests the most recent calls of some sources would make with a request shape as typed in
 * the form (docs/request-shape.md#preview): the same shapeRequest the worker runs, so the preview
 * is what would be sent, byte for byte, less the signature headers (computed when sent).
 */
export async function previewMapping(opts: { workspaceId: string; input: MappingPreviewInput }): Promise<MappingPreviewResult> {
  const { sourceIds, urls, method, mapping, headers, limit } = opts.input;
  if (sourceIds.length === 0) return { requests: [] };
  const { rows: owned } = await pool().query<{ id: string }>("SELECT id FROM sources WHERE workspace_id = $1 AND id = ANY($2::uuid[])", [
    opts.workspaceId,
    sourceIds,
  ]);
  const ours = new Set(owned.map((r) => r.id));
  const fields: Record<string, string[]> = {};
  sourceIds.forEach((id, i) => {
    if (!ours.has(id)) fields[`sourceIds.${i}`] = ["No such source in this workspace"];
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);

  // Per source, its newest calls through messages(source_id, received_at); then the newest of those.
  const { rows } = await pool().query<Row>(
    `SELECT m.message_id, m.type, m.event, m.user_id, m.anonymous_id, ${iso("m.timestamp")} AS timestamp,
            ${iso("m.received_at")} AS received_at, ${iso("m.sent_at")} AS sent_at, m.payload
       FROM unnest($1::uuid[]) AS s(id)
       CROSS JOIN LATERAL (
         SELECT * FROM messages
          WHERE source_id = s.id AND origin = 'api' AND payload IS NOT NULL
          ORDER BY received_at DESC LIMIT $2) m
      ORDER BY m.received_at DESC LIMIT $2`,
    [[...ours], limit],
  );

  const shape = prepareShape({ method, mapping, urls });
  const sentHeaders: Record<string, string> = {};
  for (const h of headers) if (h.name) sentHeaders[h.name] = "(stored value)";
  sentHeaders["content-type"] = "application/json";
  sentHeaders["user-agent"] = USER_AGENT;
  const shown = maskHeaders(sentHeaders);
  return {
    requests: rows.map((r) => {
      const message: StoredMessage = {
        type: r.type,
        messageId: r.message_id,
        userId: r.user_id,
        anonymousId: r.anonymous_id,
        timestamp: r.timestamp,
        receivedAt: r.received_at,
        sentAt: r.sent_at,
        payload: r.payload,
      };
      const { body, targets } = shapeRequest(shape, message, urls);
      const allFailed = targets.every((t) => "error" in t);
      return {
        messageId: r.message_id,
        type: r.type,
        event: r.event,
        method: shape.method,
        urls: urls.map((url, i) => {
          const t = targets[i];
          return "error" in t ? { url, sendTo: null, error: t.error } : { url, sendTo: t.sendTo, error: null };
        }),
        headers: shown,
        body: allFailed && body === "" ? null : body,
      };
    }),
  };
}
