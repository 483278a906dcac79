import "server-only";
import type http from "node:http";
import type { FastifyReply } from "fastify";
import { lingerAfterAnswer } from "./lingering-close";

/**
 * Connections the edge has answered with `Connection: close`: requests already pipelined behind
 * that answer are dropped, not served (Node parses them before the socket closes).
 */
const closing = new WeakSet<object>();
export const isClosing = (req: http.IncomingMessage): boolean => closing.has(req.socket) || req.socket.destroyed;

/**
 * Answers with `Connection: close`: the body stops being read now, the connection ends once the
 * answer is written, with a bounded lingering close (lingering-close.ts), and requests pipelined
 * behind it are dropped.
 */
export function closeAfterAnswer(reply: FastifyReply): void {
  reply.header("connection", "close");
  closing.add(reply.request.raw.socket);
  lingerAfterAnswer(reply.request.raw);
}

/** Requests refused for a body over their limit, read past it or declared past it (the penalty box counts them: penalty-box.ts). */
const overLimit = new WeakSet<http.IncomingMessage>();
export const markOverLimit = (req: http.IncomingMessage): void => void overLimit.add(req);
export const wentOverLimit = (req: http.IncomingMessage): boolean => overLimit.has(req);

/** True while a request's body is still arriving (or unread): its connection cannot carry another request. */
export function bodyPending(req: http.IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * The edge's own answers. /v1 answers carry `code` and `message` at the top level, where Segment's
 * libraries read them (analytics-python raises on a missing `code`), and the nested `error` the
 * Tracking API has always sent; other paths the Management API's `{"error": {code, message}}`
 * (docs/edge.md#answers).
 */
export function edgeError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  opts: { close?: boolean; retryAfter?: number } = {},
): FastifyReply {
  const path = reply.request.url;
  const tracking = path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?");
  const body = tracking ? { success: false, code, message, error: { code, message } } : { error: { code, message } };
  reply.code(status).header("content-type", "application/json").header("cache-control", "no-store");
  if (opts.close) closeAfterAnswer(reply);
  if (opts.retryAfter !== undefined) reply.header("retry-after", String(opts.retryAfter));
  return reply.send(JSON.stringify(body));
}
