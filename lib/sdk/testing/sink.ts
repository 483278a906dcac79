/**
 * A real HTTP server on 127.0.0.1 standing in for the Tracking API in the library's unit tests: it
 * records every request and answers with whatever the test's handler decides (default 200).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Received = {
  at: number;
  method: string;
  path: string;
  authorization?: string;
  bytes: number;
  body: { batch: Array<Record<string, any>>; sentAt: string };
};

export type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | "hang";

export type Sink = {
  url: string;
  port: number;
  requests: Received[];
  /** messageIds of every message received, in arrival order (duplicates kept). */
  messageIds(): string[];
  close(): Promise<void>;
};

export async function startSink(
  handler: (req: Received, index: number) => Reply | Promise<Reply> = () => ({ status: 200 }),
  port = 0,
): Promise<Sink> {
  const requests: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks);
      const received: Received = {
        at: Date.now(),
        method: req.method!,
        path: req.url!,
        authorization: req.headers.authorization,
        bytes: raw.length,
        body: JSON.parse(raw.toString("utf8")),
      };
      requests.push(received);
      const reply = await handler(received, requests.length - 1);
      if (reply === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.body ?? { success: reply.status < 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    requests,
    messageIds: () => requests.flatMap((r) => r.body.batch.map((m) => m.messageId as string)),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until `fn` is truthy; bounded, for conditions that arrive over the network. */
export async function until<T>(fn: () => T, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
