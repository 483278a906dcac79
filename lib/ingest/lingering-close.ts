import "server-only";
import type http from "node:http";
import type net from "node:net";

/** Bytes the edge reads and drops after an answer that closes the connection, at most. */
export const LINGER_BYTES = 64 * 1024;
/** …and for how long, at most, waiting for the client to close its side. */
export const LINGER_MS = 2_000;

/**
 * Stops reading a request's body now, and makes the close after its answer a lingering one
 * (docs/edge.md#framing; docs/decisions/0051-edge-under-abuse.md, 2026-12-07, what read the second megabyte).
 *
 * The body stops here: a parser that stopped at its limit leaves the request flowing, and Node's
 * HTTP parser then reads on as fast as it drains until the connection closes. Reading the buffered
 * rest marks the body as the edge's, so Node's server does not dump it (read to its end, no bound)
 * when the answer ends.
 *
 * The close: Node ends a `Connection: close` connection with socket.destroySoon() once the answer is
 * written — FIN, then destroy, which resets (RST) a connection with unread bytes and can take the
 * answer with it. Here the FIN goes after the answer as before; then what the client still sends is
 * read and dropped, LINGER_BYTES and LINGER_MS at most, until it closes its side (RFC 9112 §9.6,
 * nginx's lingering_close), and only then is the connection destroyed.
 */
export function lingerAfterAnswer(req: http.IncomingMessage): void {
  req.removeAllListeners("data");
  req.pause();
  req.read();
  const socket = req.socket as net.Socket & { destroySoon?: () => void };
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const from = socket.bytesRead;
    const close = () => socket.destroy();
    const deadline = setTimeout(close, LINGER_MS);
    deadline.unref();
    socket.once("close", () => clearTimeout(deadline));
    req.on("data", () => {
      if (socket.bytesRead - from >= LINGER_BYTES) close();
    });
    req.resume();
  };
}
