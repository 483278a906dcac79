/** A real webhook receiver on 127.0.0.1 that records what it gets and answers as told. */
import http from "node:http";
import type net from "node:net";

export type Received = { headers: http.IncomingHttpHeaders; body: string; at: number };

export type Receiver = {
  url: string;
  received: Received[];
  /** Status for the next requests: a list consumed in order, then `then` for the rest. */
  answer(statuses: number[], then?: number): void;
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let queue: number[] = [];
  let fallback = 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      res.writeHead(queue.shift() ?? fallback, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer(statuses, then = 200) {
      queue = [...statuses];
      fallback = then;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
