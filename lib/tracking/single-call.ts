import "server-only";
import { AppError } from "../platform/errors";
import type { TrackingEndpoint } from "./ingest";

/**
 * Whether a Tracking API call is refused (400 `invalid_message`) for its rejected message. Pure.
 *
 * `/v1/track`, `/v1/identify`, `/v1/page`, `/v1/screen`, `/v1/group` and `/v1/alias` carry one
 * message: when it is rejected, nothing of it is stored and the answer is a 400, which every real
 * client reports (none reads `rejected` in a 200). `/v1/batch` and `/v1/import` keep accepting
 * message by message — a 400 there would make clients drop the good messages with the bad — and
 * list rejections in their 200 (docs/tracking-api.md#responses). Either way the
 * rejection is in the source's debugger, counter and metrics.
 */
export function singleCallRefusal(endpoint: TrackingEndpoint, rejected: { reason: string }[]): AppError | null {
  if (endpoint === "batch" || endpoint === "import" || rejected.length === 0) return null;
  return new AppError("invalid_message", `The message was rejected: ${rejected[0].reason}`);
}
