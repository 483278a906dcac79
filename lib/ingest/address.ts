import "server-only";
import type http from "node:http";
import { clientAddressOf } from "../api/client-address";

/**
 * Client addresses at the edge (docs/edge.md#client-addresses, docs/operations.md#client-addresses):
 * the socket's peer, or — with `trustedProxies` proxies in front — the X-Forwarded-For entry that
 * many places from the right. Nothing else a client sends names its address.
 */
export function peerOf(req: http.IncomingMessage): string {
  return req.socket.remoteAddress ?? "unknown";
}

const headerText = (v: string | string[] | undefined): string | null => (v === undefined ? null : Array.isArray(v) ? v.join(", ") : v);

export function clientAddressOfRaw(req: http.IncomingMessage, trustedProxies: number): string {
  return clientAddressOf({ peer: peerOf(req), forwardedFor: headerText(req.headers["x-forwarded-for"]), trustedProxies });
}

/** X-Forwarded-For as the web app receives it: what came in, with this edge's peer appended. */
export function forwardedFor(req: http.IncomingMessage): string {
  const given = headerText(req.headers["x-forwarded-for"]);
  const peer = peerOf(req);
  return given ? `${given}, ${peer}` : peer;
}

/**
 * This install's public base URL as a client reached it: EVENTRAIL_PUBLIC_URL when set, else the
 * request's Host, with the scheme from X-Forwarded-Proto only when a trusted proxy is in front.
 */
export function publicBaseUrl(req: http.IncomingMessage, opts: { configured: string | null; trustedProxies: number }): string {
  if (opts.configured) return opts.configured.replace(/\/+$/, "");
  const host = headerText(req.headers.host) ?? "localhost";
  const forwardedProto = opts.trustedProxies > 0 ? headerText(req.headers["x-forwarded-proto"]) : null;
  const proto = forwardedProto?.split(",").pop()?.trim().toLowerCase() === "https" ? "https" : "http";
  return `${proto}://${host}`;
}
