import "server-only";
import crypto from "node:crypto";

/**
 * The request id of an incoming request: the caller's (or its proxy's) X-Request-Id when it is a
 * sane token, so one id follows a request through the load balancer and our logs; otherwise a new one.
 * Echoed back in the response's X-Request-Id.
 */
const SANE = /^[A-Za-z0-9._:-]{8,128}$/;

/** Anything with request headers: a Web Request (Next) or the ingest server's view of a node:http request. */
export type HeaderLookup = { get(name: string): string | null };

export function requestIdOf(req: { headers: HeaderLookup }): string {
  const given = req.headers.get("x-request-id");
  return given && SANE.test(given) ? given : crypto.randomUUID();
}
