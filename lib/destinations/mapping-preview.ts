import "server-only";
import { AppError } from "../platform/errors";
import { maskHeaders, USER_AGENT } from "../webhooks/request";
import { prepareShape, shapeRequest } from "../webhooks/request-shape";
import type { MappingPreviewInput, MappingPreviewResult } from "./contract";
import { recentCalls } from "./recent-calls";

/** What one preview may build: its bodies together, and its time. */
export const PREVIEW_BUDGET = { bytes: 1024 * 1024, ms: 1000 } as const;

/**
 * The requests the most recent calls of some sources would make with a request shape as typed in
 * the form (docs/request-shape.md#preview): the same shapeRequest the worker runs, so the preview
 * is what would be sent, byte for byte, less the signature headers (computed when sent).
 */
export async function previewMapping(opts: { workspaceId: string; input: MappingPreviewInput }): Promise<MappingPreviewResult> {
  const { sourceIds, urls, method, mapping, numbers, headers, limit } = opts.input;
  const rows = await recentCalls({ workspaceId: opts.workspaceId, sourceIds, limit });

  const shape = prepareShape({ method, mapping, urls, numbers });
  const started = performance.now();
  let bytes = 0;
  const sentHeaders: Record<string, string> = {};
  for (const h of headers) if (h.name) sentHeaders[h.name] = "(stored value)";
  sentHeaders["content-type"] = "application/json";
  sentHeaders["user-agent"] = USER_AGENT;
  const shown = maskHeaders(sentHeaders);
  return {
    requests: rows.map((message) => {
      const { body, targets } = shapeRequest(shape, message, urls);
      // A preview answers within its budget (docs/request-shape.md#preview), or says why it does not.
      bytes += body.length;
      if (bytes > PREVIEW_BUDGET.bytes)
        throw new AppError(
          "validation_failed",
          `The preview's bodies come to more than ${PREVIEW_BUDGET.bytes / 1024 / 1024} MB: preview fewer calls or map less`,
          {
            mapping: ["Its bodies for these calls are more than the preview shows"],
          },
        );
      if (performance.now() - started > PREVIEW_BUDGET.ms)
        throw new AppError(
          "validation_failed",
          `The preview took more than ${PREVIEW_BUDGET.ms / 1000} s: preview fewer calls or map less`,
          {
            mapping: ["Too slow to preview for these calls"],
          },
        );
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
