import "server-only";
import { requestIdOf } from "../platform/request-id";
import { logger } from "../platform/logger";
import { countTrackingRequest } from "../metrics/tracking";
import { AppError, RETRY_AFTER_SECONDS, STATUS_BY_CODE, isDatabaseUnavailable } from "../platform/errors";
import type { IncomingCall } from "./body";
import { ingestCall, type TrackingEndpoint } from "./ingest";
import { singleCallRefusal } from "./single-call";

/** A Tracking API answer, for either server to write: Next's route handler or the ingest server. */
export type TrackingAnswer = { status: number; body: string; headers: Record<string, string> };

// no-transform keeps a proxy or Next from gzipping these tiny bodies (real clients send
// Accept-Encoding): a gzip stream per response costs more CPU than the bytes it saves.
const json = (status: number, body: unknown, headers: Record<string, string> = {}): TrackingAnswer => ({
  status,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", "cache-control": "no-store, no-transform", ...headers },
});

/**
 * A refusal as Segment's libraries read it: `code` and `message` at the top level (analytics-python
 * reads body["code"], analytics-go logs body.message), and the same pair under `error` as before.
 */
export const errorBody = (code: string, message: string) => ({ success: false, code, message, error: { code, message } });

/**
 * One Tracking API call, answered. Segment's response shapes: 200 `{"success": true}` (+ `rejected`
 * on /v1/batch and /v1/import), otherwise `{"success": false, code, message, "error": {code, message}}` — a
 * single-message endpoint's rejected message included (single-call.ts). A 200 is only ever sent
 * after the transaction committed. Logs one line per request, at debug (docs/operations.md#logs);
 * never the body or the Authorization header (the write key).
 */
export async function answerTrackingCall(req: IncomingCall, endpoint: TrackingEndpoint): Promise<TrackingAnswer> {
  const requestId = requestIdOf(req);
  const started = performance.now();
  const res = await answer(req, endpoint, requestId);
  res.headers["x-request-id"] = requestId;
  const ms = performance.now() - started;
  countTrackingRequest(endpoint, res.status, ms / 1000);
  logger().debug({ requestId, endpoint, status: res.status, ms: Math.round(ms) }, "tracking request");
  return res;
}

/** The route handler of a Tracking API endpoint in the web app (app/v1/*); the ingest server serves the same. */
export function trackingRoute(endpoint: TrackingEndpoint) {
  return async (req: Request): Promise<Response> => {
    const { status, body, headers } = await answerTrackingCall(req, endpoint);
    return new Response(body, { status, headers });
  };
}

async function answer(req: IncomingCall, endpoint: TrackingEndpoint, requestId: string): Promise<TrackingAnswer> {
  try {
    const result = await ingestCall({ req, endpoint });
    const refusal = singleCallRefusal(endpoint, result.rejected);
    if (refusal) throw refusal;
    return json(200, result.rejected.length ? { success: true, rejected: result.rejected } : { success: true });
  } catch (err) {
    if (err instanceof AppError && err.code !== "unavailable" && err.code !== "internal") {
      // Reading stopped mid-body: the rest of it is still on the socket, so the connection cannot be reused.
      const headers: Record<string, string> = err.code === "body_too_large" ? { connection: "close" } : {};
      return json(STATUS_BY_CODE[err.code], errorBody(err.code, err.message), headers);
    }
    if ((err instanceof AppError && err.code === "unavailable") || isDatabaseUnavailable(err)) {
      logger().warn({ requestId, endpoint, err: (err as Error).message }, "tracking call refused: database unavailable");
      return json(503, errorBody("unavailable", "The database is unavailable; nothing was stored. Retry later."), {
        "retry-after": String(RETRY_AFTER_SECONDS),
      });
    }
    logger().error(
      { requestId, endpoint, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
      "tracking call failed",
    );
    return json(500, errorBody("internal", `Internal error (request ${requestId}); nothing was stored`));
  }
}
