/**
 * `npm run bench:tracking-cpu`: the Node CPU of ingest's own work on a request, without sockets or
 * Postgres — read the body (parseCallBody), normalise each message, build the statement's message columns
 * (lib/tracking) — for bench:ingest's 100-message batches of ~600 B track calls, against what the raw
 * pipeline ceiling's server does with the same bodies (JSON.parse, then JSON.stringify per message).
 * One process, nothing else in flight: steadier than bench:ingest's CPU split for a lever of a few
 * per cent (docs/architecture.md#ingest-throughput). Env: BENCH_BATCH (100), TRACKING_CPU_ROUNDS (20).
 */
import crypto from "node:crypto";
import { parseCallBody } from "../lib/tracking/body";
import { normaliseMessage, type NormalisedMessage } from "../lib/tracking/normalise";
import { messageColumns } from "../lib/tracking/produce";
import { newRowId } from "../lib/tracking/row-ids";
import { toIso } from "../lib/tracking/timestamps";
import { benchTrackCall } from "./lib/track-call";
import { costRatio, printResult } from "./lib/result";

const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const ROUNDS = Number(process.env.TRACKING_CPU_ROUNDS ?? 20);

let counter = 0;
/** The same call as bench/ingest.ts sends. */
function message(): Record<string, unknown> {
  const n = counter++;
  return benchTrackCall(n, `bench-cpu-${n}`, new Date(Date.now() - n).toISOString());
}

const bodies = Array.from({ length: 200 }, () =>
  Buffer.from(JSON.stringify({ batch: Array.from({ length: BATCH }, message), sentAt: new Date().toISOString() })),
);

/** What ingest's Node side does with a body before the statement is sent. */
function tracking(body: Buffer): number {
  const now = Date.now();
  const receivedAt = { ms: now, iso: toIso(now) };
  const parsed = parseCallBody(body, null);
  const rows: { rowId: string; message: NormalisedMessage }[] = [];
  parsed.messages.forEach((raw, index) => {
    const r = normaliseMessage({
      raw,
      index,
      endpointType: null,
      defaults: parsed.defaults,
      sentBytes: parsed.sentBytes?.[index] ?? null,
      receivedAt,
      newMessageId: crypto.randomUUID,
    });
    if (r.ok) rows.push({ rowId: newRowId(), message: r.message });
  });
  const c = messageColumns(rows);
  let bytes = 0;
  for (const v of Object.values(c)) bytes += Buffer.byteLength(v);
  return bytes;
}

/** The raw pipeline ceiling's server (bench/lib/raw-ceiling-server.ts): parse, then one JSON per message. */
function raw(body: Buffer): number {
  const { batch } = JSON.parse(body.toString("utf8")) as { batch: unknown[] };
  return batch.map((m) => JSON.stringify(m)).length;
}

/** CPU µs per request of `f`, after a warm-up. */
function measure(f: (b: Buffer) => number): number {
  for (let r = 0; r < 5; r++) for (const b of bodies) f(b);
  const before = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) for (const b of bodies) f(b);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (ROUNDS * bodies.length);
}

const ceiling = measure(raw);
const product = measure(tracking);
const per1000 = (us: number) => ((us * 1000) / BATCH / 1000).toFixed(1);
console.log(`raw parse + stringify        ${ceiling.toFixed(0).padStart(6)} µs per request = ${per1000(ceiling)} ms per 1,000 events`);
console.log(`parse + normalise + columns   ${product.toFixed(0).padStart(5)} µs per request = ${per1000(product)} ms per 1,000 events`);
printResult("tracking-cpu", costRatio(product, ceiling), { us_per_request: product, ceiling_us_per_request: ceiling });
