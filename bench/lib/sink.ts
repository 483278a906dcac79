/**
 * The benchmark's webhook receiver, in its own process so that it does not share an event loop with
 * either the worker or the raw-ceiling client: keep-alive HTTP answering 200 to every POST, counting
 * requests and (when asked) noting when each messageId arrived.
 */
import http from "node:http";
import type net from "node:net";

let count = 0;
/**
 * BENCH_SINK_STALL="<n>:<ms>": at every n-th request the sink stops answering for ms, and whatever
 * arrives meanwhile is answered when the stall ends, as a process descheduled on a loaded machine
 * would: what such a machine does to the worker's view of a healthy origin, reproducible
 * (docs/decisions/0014-batch-patience.md).
 */
const [stallEvery, stallMs] = (process.env.BENCH_SINK_STALL ?? "0:0").split(":").map(Number);
let stalledUntil = 0;
let trackReceipts = false;
const receipts: [string, number][] = [];
const now = () => performance.timeOrigin + performance.now();

const server = http.createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    count++;
    if (trackReceipts) {
      const at = now();
      try {
        // A batched body is an array of the events' bodies (docs/request-shape.md#batching): each is a receipt.
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const one of Array.isArray(body) ? body : [body]) receipts.push([one.messageId, at]);
      } catch {}
    }
    const answer = () => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
      res.end("ok");
    };
    const t = performance.now();
    if (stallEvery > 0 && count % stallEvery === 0) stalledUntil = t + stallMs;
    if (t < stalledUntil) setTimeout(answer, stalledUntil - t);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

server.listen(0, "127.0.0.1", () => {
  process.send!({ type: "ready", port: (server.address() as net.AddressInfo).port });
});

process.on("message", (msg: { cmd: string }) => {
  if (msg.cmd === "count") process.send!({ type: "count", count });
  else if (msg.cmd === "reset") {
    count = 0;
    receipts.length = 0;
    process.send!({ type: "reset" });
  } else if (msg.cmd === "track") {
    trackReceipts = true;
    process.send!({ type: "track" });
  } else if (msg.cmd === "receipts") process.send!({ type: "receipts", receipts });
  // events received while tracking: a batched body's events each count (the request count does not)
  else if (msg.cmd === "events") process.send!({ type: "events", count: receipts.length });
  else if (msg.cmd === "exit") server.close(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
