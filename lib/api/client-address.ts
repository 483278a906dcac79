import "server-only";
import http from "node:http";
import { env } from "../platform/env";

/**
 * The header the web process stamps on every request with its socket's peer address, replacing any
 * value a client sent. Next hands route handlers a Web Request without the socket, and only fills
 * X-Forwarded-For when the client did not send one, so X-Forwarded-For alone could be forged.
 */
export const PEER_ADDRESS_HEADER = "x-eventrail-peer-address";

const STAMPED = Symbol.for("eventrail.peerAddressStamped");

/**
 * Called once at start-up (instrumentation.ts): every HTTP server of the process then stamps each
 * incoming request with its peer address before Next sees it.
 */
export function stampPeerAddresses(): void {
  const proto = http.Server.prototype as unknown as Record<symbol, boolean> & { emit: (...args: unknown[]) => boolean };
  if (proto[STAMPED]) return;
  proto[STAMPED] = true;
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: unknown, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      req.headers[PEER_ADDRESS_HEADER] = req.socket.remoteAddress ?? "unknown";
    }
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}

/**
 * Which address a request comes from (docs/operations.md#client-addresses), pure: the socket's peer,
 * unless `trustedProxies` reverse proxies are in front, each appending the address it saw to
 * X-Forwarded-For — then the entry that many places from the right (what the outermost trusted proxy
 * saw); entries further left were written by the client and are never believed.
 */
export function clientAddressOf(opts: { peer: string | null; forwardedFor: string | null; trustedProxies: number }): string {
  const peer = normaliseAddress(opts.peer ?? "unknown");
  if (opts.trustedProxies <= 0 || !opts.forwardedFor) return peer;
  const hops = opts.forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (hops.length === 0) return peer;
  return normaliseAddress(hops[Math.max(0, hops.length - opts.trustedProxies)]);
}

/** `::ffff:1.2.3.4` and `1.2.3.4` are one client; the value is used as a counter key, so it is bounded. */
function normaliseAddress(a: string): string {
  return a.replace(/^::ffff:/i, "").slice(0, 64);
}

/** The request's client address under the operator's EVENTRAIL_TRUSTED_PROXIES setting. */
export function clientAddress(req: Request): string {
  return clientAddressOf({
    peer: req.headers.get(PEER_ADDRESS_HEADER),
    forwardedFor: req.headers.get("x-forwarded-for"),
    trustedProxies: env().EVENTRAIL_TRUSTED_PROXIES,
  });
}
