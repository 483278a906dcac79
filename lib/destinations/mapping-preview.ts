import "server-only";
import { maskHeaders, USER_AGENT } from "../webhooks/request";
import { prepareShape, shapeRequest } from "../webhooks/request-shape";
import type { MappingPreviewInput, MappingPreviewResult } from "./contract";
import { recentCalls } from "./recent-calls";

/**
 * The requests the most recent calls of some sources would make with a request shape as typed in
 * the form (docs/request-shape.md#preview): the same shapeRequest the worker runs, so the preview
 * is what would be sent, byte for byte, less the signature headers (computed when sent).
 */
export async function previewMapping(opts: { workspaceId: string; input: MappingPreviewInput }): Promise<MappingPreviewResult> {
  const { sourceIds, urls, method, mapping, headers, limit } = opts.input;
  const rows = await recentCalls({ workspaceId: opts.workspaceId, sourceIds, limit });

  const shape = prepareShape({ method, mapping, urls });
  const sentHeaders: Record<string, string> = {};
  for (const h of headers) if (h.name) sentHeaders[h.name] = "(stored value)";
  sentHeaders["content-type"] = "application/json";
  sentHeaders["user-agent"] = USER_AGENT;
  const shown = maskHeaders(sentHeaders);
  return {
    requests: rows.map((message) => {
      const { body, targets } = shapeRequest(shape, message, urls);
      const allFailed = targets.every((t) => "error" in t);
      return {
        messageId: message.messageId,
        type: message.type,
        event: message.event,
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
