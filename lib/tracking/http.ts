import { requestIdOf } from "../http/request-id";
import { log } from "../log";
import { countTrackingRequest } from "../metrics/tracking";
import { TrackingError, isDatabaseUnavailable } from "./errors";
import { ingestCall, type TrackingEndpoint } from "./ingest";

/** Seconds a client should wait before retrying while the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;

// no-transform keeps Next from gzipping these tiny bodies (real clients send Accept-Encoding):
// a gzip stream per response costs more CPU than the bytes it saves.
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store, no-transform", ...headers } });

/**
 * The route handler of a Tracking API endpoint. Segment's response shapes: 200 `{"success": true}`
 * (+ `rejected`), otherwise `{"success": false, "error": {code, message}}`. A 200 is only ever sent
 * after the transaction committed.
 */
export function trackingRoute(endpoint: TrackingEndpoint) {
  return async (req: Request): Promise<Response> => {
    const requestId = requestIdOf(req);
    const started = performance.now();
    const res = await answer(req, endpoint, requestId);
    res.headers.set("x-request-id", requestId);
    countTrackingRequest(endpoint, res.status);
    // One line per request; never the body or the Authorization header (the write key).
    log().info({ requestId, endpoint, status: res.status, ms: Math.round(performance.now() - started) }, "tracking request");
    return res;
  };
}

async function answer(req: Request, endpoint: TrackingEndpoint, requestId: string): Promise<Response> {
  try {
    const result = await ingestCall({ req, endpoint });
    return json(200, result.rejected.length ? { success: true, rejected: result.rejected } : { success: true });
  } catch (err) {
    if (err instanceof TrackingError && err.code !== "unavailable") {
      // Reading stopped mid-body: the rest of it is still on the socket, so the connection cannot be reused.
      const headers: Record<string, string> = err.code === "body_too_large" ? { connection: "close" } : {};
      return json(err.status, { success: false, error: { code: err.code, message: err.message } }, headers);
    }
    if (err instanceof TrackingError || isDatabaseUnavailable(err)) {
      log().warn({ requestId, endpoint, err: (err as Error).message }, "tracking call refused: database unavailable");
      return json(
        503,
        { success: false, error: { code: "unavailable", message: "The database is unavailable; nothing was stored. Retry later." } },
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
    log().error({ requestId, endpoint, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) }, "tracking call failed");
    return json(500, { success: false, error: { code: "internal", message: `Internal error (request ${requestId}); nothing was stored` } });
  }
}
