import "server-only";
import type http from "node:http";
import type net from "node:net";
import { bodyPending } from "./answers";

export type ConnectionLimits = {
  /** Open connections from one client address (the socket's peer). */
  perAddress: number;
  /** Open connections in all. */
  total: number;
  /** A connection over a cap replaces one idle at least this long (ms), never a younger one. */
  evictAfterIdleMs: number;
  /**
   * Past this many connections with a request in flight, requests for the web app are refused;
   * /v1 keeps the rest. Idle connections do not count: a new connection takes an idle one's place.
   */
  webRoom: number;
  /** Slowest body upload accepted, in bytes per second, averaged from the request's start… */
  minBodyBytesPerSecond: number;
  /** …once it has run this long. */
  bodyRateGraceMs: number;
};

type Conn = { address: string; inFlight: number; tracked: boolean; admittedAt: number; idleSince: number };

/**
 * Caps on connections and a minimum body rate (docs/edge.md#slow-and-greedy-clients). A new
 * connection over a cap takes the place of the oldest connection of the same address — or, over the
 * total cap, of anyone — that has been idle (no request in flight) for `evictAfterIdleMs`, and is
 * reset (RST) itself when there is none: idle sockets cannot crowd out a client's next request, one
 * address cannot hold more than its share of the port, and an address opening connections faster
 * than its cap a second gets most of them reset. The caps are decided before Node's HTTP layer sees
 * the socket (the server's `connection` event is intercepted): a refused connection costs an accept,
 * a socket object and a reset, no parser or stream state — at ~4,000 connections a second those were
 * what each young-generation scavenge copied, and `/v1` waited out the pauses
 * (docs/decisions/0051-edge-under-abuse.md, 2026-12-07 night). Node's own deadlines
 * (headersTimeout, requestTimeout) bound each request; this adds the rate, so a body that trickles
 * is cut off after seconds, not at the request deadline.
 */
export function guardConnections(server: http.Server, limits: ConnectionLimits) {
  const conns = new Map<net.Socket, Conn>();
  const byAddress = new Map<string, Set<net.Socket>>();
  /** Tracked connections with a request in flight. */
  let busy = 0;
  const addInFlight = (c: Conn, delta: number) => {
    const was = c.inFlight > 0;
    c.inFlight += delta;
    if (c.inFlight === 0) c.idleSince = Date.now();
    if (c.tracked && was !== c.inFlight > 0) busy += was ? -1 : 1;
  };

  const forget = (socket: net.Socket) => {
    const c = conns.get(socket);
    if (!c) return;
    if (c.inFlight > 0) busy--;
    c.tracked = false;
    conns.delete(socket);
    const set = byAddress.get(c.address);
    set?.delete(socket);
    if (set?.size === 0) byAddress.delete(c.address);
  };
  /** Closes the oldest connection idle for evictAfterIdleMs; false when there is none. */
  const evictIdle = (among: Iterable<net.Socket>, now: number): boolean => {
    for (const s of among) {
      const c = conns.get(s);
      if (!c) continue;
      // In admission order: a connection admitted since cannot have been idle long enough.
      if (now - c.admittedAt < limits.evictAfterIdleMs) return false;
      if (c.inFlight === 0 && now - c.idleSince >= limits.evictAfterIdleMs) {
        forget(s);
        s.destroy();
        return true;
      }
    }
    return false;
  };
  const admit = (socket: net.Socket): boolean => {
    const address = (socket.remoteAddress ?? "unknown").replace(/^::ffff:/i, "");
    const now = Date.now();
    const mine = byAddress.get(address);
    if (mine && mine.size >= limits.perAddress && !evictIdle(mine, now)) return false;
    if (conns.size >= limits.total && !evictIdle(conns.keys(), now)) return false;
    conns.set(socket, { address, inFlight: 0, tracked: true, admittedAt: now, idleSince: now });
    const set = byAddress.get(address) ?? new Set<net.Socket>();
    set.add(socket);
    byAddress.set(address, set);
    socket.once("close", () => forget(socket));
    return true;
  };
  // Before every `connection` listener, Node's HTTP layer's included: a refused socket never gets one.
  const emit = server.emit;
  server.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connection" && !admit(args[0] as net.Socket)) {
      (args[0] as net.Socket).resetAndDestroy();
      return false;
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof server.emit>);
  } as typeof server.emit;

  /** Requests whose body is still arriving, with when they started and the socket's count then. */
  const uploading = new Map<http.IncomingMessage, { started: number; bytesAtStart: number }>();
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    const c = conns.get(req.socket);
    if (c) addInFlight(c, 1);
    res.once("close", () => {
      if (c) addInFlight(c, -1);
      uploading.delete(req);
    });
    if (bodyPending(req)) {
      uploading.set(req, { started: Date.now(), bytesAtStart: req.socket.bytesRead });
      req.once("end", () => uploading.delete(req));
    }
  });
  const rateCheck = setInterval(() => {
    const now = Date.now();
    for (const [req, u] of uploading) {
      const elapsed = now - u.started;
      if (req.complete) uploading.delete(req);
      else if (
        elapsed >= limits.bodyRateGraceMs &&
        ((req.socket.bytesRead - u.bytesAtStart) * 1000) / elapsed < limits.minBodyBytesPerSecond
      ) {
        uploading.delete(req);
        req.emit("edge:too-slow");
        req.socket.destroy();
      }
    }
  }, 500);
  rateCheck.unref();
  server.once("close", () => clearInterval(rateCheck));

  return {
    open: () => conns.size,
    /** Connections with a request in flight. */
    busy: () => busy,
    /** True when the web app may take one more request: the last connections are kept for /v1. */
    webHasRoom: () => busy <= limits.webRoom,
  };
}
