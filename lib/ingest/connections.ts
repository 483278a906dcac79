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

/** Node's listening TCP handle, and one it accepted (lib/net.js, src/tcp_wrap.cc). */
type ClientHandle = { getpeername?: (out: { address?: string }) => number; reset?: () => number; close: () => void };
type ListenHandle = { onconnection: (err: number, client?: ClientHandle) => void };

type Conn = { address: string; inFlight: number; tracked: boolean; admittedAt: number; idleSince: number };

/**
 * Caps on connections and a minimum body rate (docs/edge.md#slow-and-greedy-clients). A new
 * connection over a cap takes the place of the oldest connection of the same address — or, over the
 * total cap, of anyone — that has been idle (no request in flight) for `evictAfterIdleMs`, and is
 * reset (RST) itself when there is none: idle sockets cannot crowd out a client's next request, one
 * address cannot hold more than its share of the port, and an address opening connections faster
 * than its cap a second gets most of them reset. The caps are decided on the accepted handle, before
 * Node makes a socket of it: a refused connection costs an accept and a reset, no socket, parser or
 * stream state — at ~4,000 connections a second those were what each young-generation scavenge
 * copied, and `/v1` waited out the pauses (docs/decisions/0051-edge-under-abuse.md, 2026-12-07).
 * Node's own deadlines (headersTimeout, requestTimeout) bound each request; this adds the rate, so a body that trickles
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
  /** Whether a new connection from `address` may open, evicting an idle one if it must. */
  const hasRoom = (address: string, now: number): boolean => {
    const mine = byAddress.get(address);
    if (mine && mine.size >= limits.perAddress && !evictIdle(mine, now)) return false;
    if (conns.size >= limits.total && !evictIdle(conns.keys(), now)) return false;
    return true;
  };
  const track = (socket: net.Socket, address: string, now: number) => {
    conns.set(socket, { address, inFlight: 0, tracked: true, admittedAt: now, idleSince: now });
    const set = byAddress.get(address) ?? new Set<net.Socket>();
    set.add(socket);
    byAddress.set(address, set);
    socket.once("close", () => forget(socket));
  };
  const normalised = (address: string | undefined) => (address ?? "unknown").replace(/^::ffff:/i, "");

  // The decision is made on the accepted handle, before Node makes it a net.Socket (its streams,
  // event emitter and async ids): a refused connection is reset with nothing but the handle —
  // Node's own `maxConnections` refuses at the same point (lib/net.js `onconnection`), and a reset
  // is what `socket.resetAndDestroy()` does to its handle. This is Node's internal listen handle
  // (`server._handle.onconnection`, checked on Node 20; a test fails if it stops being used): where
  // it is absent the `connection` event below decides alone, on the socket.
  /** The address the handle being accepted was admitted for, until its `connection` event. */
  let admitted: { address: string; now: number } | null = null;
  const onHandle = () => {
    const handle = (server as unknown as { _handle?: ListenHandle })._handle;
    if (typeof handle?.onconnection !== "function") return;
    const onconnection = handle.onconnection;
    handle.onconnection = function (this: ListenHandle, err: number, client?: ClientHandle) {
      if (err || !client) return onconnection.call(this, err, client);
      const peer: { address?: string } = {};
      client.getpeername?.(peer);
      const address = normalised(peer.address);
      const now = Date.now();
      if (!hasRoom(address, now)) {
        if (typeof client.reset === "function") client.reset();
        else client.close();
        return;
      }
      admitted = { address, now };
      try {
        return onconnection.call(this, err, client);
      } finally {
        admitted = null;
      }
    };
  };
  if (server.listening) onHandle();
  server.on("listening", onHandle);
  // Before every `connection` listener, Node's HTTP layer's included: a refused socket never gets one.
  const emit = server.emit;
  server.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connection") {
      const socket = args[0] as net.Socket;
      const decided = admitted;
      admitted = null;
      const address = decided?.address ?? normalised(socket.remoteAddress);
      const now = decided?.now ?? Date.now();
      if (!decided && !hasRoom(address, now)) {
        socket.resetAndDestroy();
        return false;
      }
      track(socket, address, now);
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
