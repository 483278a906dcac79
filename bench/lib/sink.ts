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
/**
 * BENCH_FAIL_USER="<userId>:<n>": on the e2e path (/e2e), a body carrying that user's event is answered
 * 500 the first n times each of its messageIds arrives, then 200, as issue 50's failing receiver does;
 * only answered-200 events count as receipts (the ordering bench: bench/deliver.ts).
 */
const [failUser, failTimes] = (process.env.BENCH_FAIL_USER ?? ":0").split(":");
const failures = new Map<string, number>();
let refused = 0;
let failedThenDelivered = 0;
let trackReceipts = false;
const receipts: [string, number][] = [];
const now = () => performance.timeOrigin + performance.now();

const server = http.createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    count++;
    let status = 200;
    if (trackReceipts || (failUser && req.url === "/e2e")) {
      const at = now();
      try {
        // A batched body is an array of the events' bodies (docs/request-shape.md#batching): each is a receipt.
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const events: { messageId: string; userId?: string }[] = Array.isArray(body) ? body : [body];
        if (failUser && req.url === "/e2e")
          for (const one of events) {
            if (one.userId !== failUser) continue;
            const n = (failures.get(one.messageId) ?? 0) + 1;
            failures.set(one.messageId, n);
            if (n <= Number(failTimes)) status = 500;
            else if (n === Number(failTimes) + 1) failedThenDelivered++;
          }
        if (trackReceipts && status === 200) for (const one of events) receipts.push([one.messageId, at]);
      } catch {}
    }
    if (status !== 200) refused++;
    const answer = () => {
      res.writeHead(status, { "content-type": "text/plain", "content-length": "2" });
      res.end(status === 200 ? "ok" : "no");
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
  } else if (msg.cmd === "receipts")
    process.send!({ type: "receipts", receipts, refused, failedThenDelivered, failUserEvents: failures.size });
  // events received while tracking: a batched body's events each count (the request count does not)
  else if (msg.cmd === "events") process.send!({ type: "events", count: receipts.length });
  else if (msg.cmd === "exit") server.close(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
