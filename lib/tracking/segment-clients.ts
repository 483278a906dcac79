import "server-only";
import type { TrackingAnswer } from "./route-handler";

/**
 * Stub (the clients engineer replaces the bodies): the settings document Segment's CDN serves for a
 * write key, and the browser library's standalone bundle. The edge mounts both (docs/edge.md).
 */
const notYet = (): TrackingAnswer => ({
  status: 404,
  body: JSON.stringify({ success: false, code: "not_found", message: "Not found" }),
  headers: { "content-type": "application/json", "cache-control": "no-store" },
});

export async function answerSettings(_writeKey: string, _publicBaseUrl: string): Promise<TrackingAnswer> {
  return notYet();
}

export function answerBrowserBundle(): TrackingAnswer {
  return notYet();
}
