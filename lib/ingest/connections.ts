import "server-only";
import type http from "node:http";
import type net from "node:net";
import { bodyPending } from "./answers";

export type ConnectionLimits = {
  /** Open connections from one client address (the socket's peer). */
  perAddress: number;
  /** Open connections in all. */
  total: number;
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

type Conn = { address: string; inFlight: number; tracked: boolean };

/**
 * Caps on connections and a minimum body rate (docs/edge.md#slow-and-greedy-clients). A new
 * connection over a cap takes the place of the oldest idle connection (no request in flight) of
 * the same address — or, over the total cap, of anyone — and is closed itself when there is none:
 * idle sockets cannot crowd out a client's next request, and one address cannot hold more than its
 * share of the port. A refused connection is reset (RST): no FIN handshake, no TIME_WAIT, its file
 * descriptor freed at once, so 20,000 sockets from one address cost the edge an accept and a close
 * each (docs/decisions/0051-edge-under-abuse.md). Node's own deadlines (headersTimeout, requestTimeout) bound each request; this
 * adds the rate, so a body that trickles is cut off after seconds, not at the request deadline.
 */
export function guardConnections(server: http.Server, limits: ConnectionLimits) {
  const conns = new Map<net.Socket, Conn>();
  const byAddress = new Map<string, Set<net.Socket>>();
  /** Tracked connections with a request in flight. */
  let busy = 0;
  const addInFlight = (c: Conn, delta: number) => {
    const was = c.inFlight > 0;
    c.inFlight += delta;
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
  const evictIdle = (among: Iterable<net.Socket>): boolean => {
    for (const s of among) {
      if (conns.get(s)?.inFlight === 0) {
        forget(s);
        s.destroy();
        return true;
      }
    }
    return false;
  };

  server.on("connection", (socket: net.Socket) => {
    const address = (socket.remoteAddress ?? "unknown").replace(/^::ffff:/i, "");
    const mine = byAddress.get(address);
    if (mine && mine.size >= limits.perAddress && !evictIdle(mine)) return void socket.resetAndDestroy();
    if (conns.size >= limits.total && !evictIdle(conns.keys())) return void socket.resetAndDestroy();
    conns.set(socket, { address, inFlight: 0, tracked: true });
    const set = byAddress.get(address) ?? new Set<net.Socket>();
    set.add(socket);
    byAddress.set(address, set);
    socket.once("close", () => forget(socket));
  });

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
