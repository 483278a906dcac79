/**
 * A drill's webhook receiver on 127.0.0.1: its behaviour can change mid-drill (answer, fail, hang),
 * and it records which messages it accepted (answered 2xx on a live connection) and when.
 */
import http from "node:http";
import type net from "node:net";

export type Behaviour = "ok" | "fail" | "hang";

export type DrillReceiver = {
  url: string;
  behave: (messageId: string) => Behaviour;
  /** messageId → number of 2xx receipts */
  receipts: Map<string, number>;
  /** messageId → ms timestamp of the first 2xx receipt */
  firstAt: Map<string, number>;
  requests: number;
  close(): Promise<void>;
};

const HANG_MS = 8_000;

/** `delayMs`: how long a 2xx answer takes (keeps requests in flight, for the crash drills); `host`: 127.0.0.1 unless told. */
export async function startDrillReceiver(
  behave: (messageId: string) => Behaviour = () => "ok",
  opts: { delayMs?: number; host?: string } = {},
): Promise<DrillReceiver> {
  const sockets = new Set<net.Socket>();
  const rx: DrillReceiver = {
    url: "",
    behave,
    receipts: new Map(),
    firstAt: new Map(),
    requests: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      rx.requests++;
      let messageId = "";
      try {
        messageId = JSON.parse(Buffer.concat(chunks).toString("utf8")).messageId ?? "";
      } catch {}
      const b = rx.behave(messageId);
      if (b === "hang") {
        // Never answers; the connection is dropped later (the sender gave up at 5 s).
        setTimeout(() => req.socket.destroy(), HANG_MS).unref();
        return;
      }
      if (b === "fail") {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("flapping");
        return;
      }
      const answer = () => {
        if (req.socket.destroyed) return;
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("ok", () => {
          rx.receipts.set(messageId, (rx.receipts.get(messageId) ?? 0) + 1);
          if (!rx.firstAt.has(messageId)) rx.firstAt.set(messageId, Date.now());
        });
      };
      if (opts.delayMs) setTimeout(answer, opts.delayMs);
      else answer();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((r) => server.listen(0, host, r));
  rx.url = `http://${host}:${(server.address() as net.AddressInfo).port}`;
  return rx;
}
