/**
 * `npm run bench:client`: the same track calls sent by this library and by @segment/analytics-node 3.x,
 * with equal batch sizes, to one local sink that answers 200 at once and counts batches and bytes.
 * Each client runs in its own child process (fair memory figures); rounds alternate the two and the
 * best round of each is reported, to soften a shared machine's noise. Not a test: it prints figures.
 *
 * Options: --calls N (100000) --batch N (20) --rounds N (2)
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { printResult, throughputRatio } from "./lib/result";

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}
const CALLS = option("calls", 100_000);
const BATCH = option("batch", 20);
const ROUNDS = option("rounds", 2);

type Counts = { batches: number; messages: number; bodyBytes: number; headerBytes: number };
let counts: Counts = { batches: 0, messages: 0, bodyBytes: 0, headerBytes: 0 };

const sink = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    counts.batches++;
    counts.bodyBytes += body.length;
    // Request line and headers as sent (rawHeaders keeps the client's own names and values).
    counts.headerBytes += `${req.method} ${req.url} HTTP/1.1\r\n`.length + req.rawHeaders.reduce((n, h) => n + h.length + 2, 0) + 2; // "name: " and "value\r\n"
    counts.messages += (JSON.parse(body.toString("utf8")) as { batch: unknown[] }).batch.length;
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"success":true}');
  });
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

type Figures = {
  which: string;
  callsPerSecond: number;
  elapsedMs: number;
  baselineRssMb: number;
  peakRssMb: number;
  peakHeapMb: number;
} & Counts;

function run(which: string): Promise<Figures> {
  counts = { batches: 0, messages: 0, bodyBytes: 0, headerBytes: 0 };
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "lib/client-child.ts"), which, endpoint, String(CALLS), String(BATCH)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${which} run exited with ${code}: ${out}`));
      resolve({ ...(JSON.parse(out.trim().split("\n").at(-1)!) as Figures), ...counts });
    }),
  );
}

const best: Record<string, Figures> = {};
for (let round = 1; round <= ROUNDS; round++) {
  for (const which of round % 2 ? ["eventrail", "segment"] : ["segment", "eventrail"]) {
    const f = await run(which);
    if (f.messages !== CALLS) throw new Error(`${which}: the sink received ${f.messages} of ${CALLS} messages`);
    console.log(
      `round ${round} ${which.padEnd(9)} ${Math.round(f.callsPerSecond).toString().padStart(7)} calls/s  ${f.batches} batches  peak RSS ${f.peakRssMb.toFixed(1)} MB`,
    );
    if (!best[which] || f.callsPerSecond > best[which].callsPerSecond) best[which] = f;
  }
}
sink.close();

const rows = ["eventrail", "segment"].map((w) => best[w]);
console.log(`\n${CALLS} track calls, batches of ${BATCH}, best of ${ROUNDS} rounds each`);
console.log("client      calls/s   elapsed   batches   body MB   header MB   peak RSS MB (baseline)   peak heap MB");
for (const f of rows) {
  console.log(
    `${f.which.padEnd(10)} ${Math.round(f.callsPerSecond).toString().padStart(8)} ${(f.elapsedMs / 1000).toFixed(2).padStart(8)}s ${String(f.batches).padStart(9)} ${(f.bodyBytes / 1e6).toFixed(2).padStart(9)} ${(f.headerBytes / 1e6).toFixed(2).padStart(11)}   ${f.peakRssMb.toFixed(1).padStart(8)} (${f.baselineRssMb.toFixed(1)})   ${f.peakHeapMb.toFixed(1).padStart(12)}`,
  );
}
const [ours, theirs] = rows;
console.log(`\nthroughput ratio (eventrail / segment): ${(ours.callsPerSecond / theirs.callsPerSecond).toFixed(2)}×  (goal ≥ 1.00×)`);
console.log(`peak RSS ratio   (eventrail / segment): ${(ours.peakRssMb / theirs.peakRssMb).toFixed(2)}×  (goal ≤ 1.00×)`);
console.log(`peak heap ratio  (eventrail / segment): ${(ours.peakHeapMb / theirs.peakHeapMb).toFixed(2)}×`);
console.log(
  `bytes on the wire ratio (body+headers): ${((ours.bodyBytes + ours.headerBytes) / (theirs.bodyBytes + theirs.headerBytes)).toFixed(2)}×`,
);
// The ceiling is Segment's own client on the same calls: ratio = our calls/s over theirs.
printResult("client", throughputRatio(ours.callsPerSecond, theirs.callsPerSecond), {
  calls_per_s: ours.callsPerSecond,
  ceiling_calls_per_s: theirs.callsPerSecond,
  rss_ratio: (ours.peakRssMb / theirs.peakRssMb).toFixed(2),
});
