/**
 * `npm run bench:store-cost`: Postgres and Node CPU per 1,000 events of ingest's store step alone
 * (lib/tracking/persist.ts storeCall, after parse and normalise), one request at a time on a fresh
 * database — a load-independent measure of what the ingest statement and the indexes cost, for
 * trying a lever before it becomes a migration (BENCH_SETUP_SQL, as in bench:ingest).
 * The ceiling, in the same run: the same messages' payloads stored by one INSERT per request into a
 * table with only a primary key (bench/lib/raw-store.ts), as bench:ingest's raw ceiling does.
 * Env: STORE_BATCHES (300), BENCH_BATCH (100), BENCH_SETUP_SQL.
 */
import crypto from "node:crypto";
import { measureCpu } from "./lib/cpu";
import { createRawTable, rawStore } from "./lib/raw-store";
import { costRatio, printResult, runBench } from "./lib/result";
import { benchDatabase } from "./lib/database";

const BATCHES = Number(process.env.STORE_BATCHES ?? 300);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);

async function main() {
  const { db, close } = await benchDatabase();
  const { storeCall } = await import("../lib/tracking/persist");
  const { normaliseMessage } = await import("../lib/tracking/normalise");
  const { findSourceByWriteKey } = await import("../lib/tracking/write-key");
  const { boss } = await import("../lib/platform/queue");
  try {
    await boss();
    const ws = (await db.query("INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'bench') RETURNING id")).rows[0];
    const writeKey = crypto.randomBytes(16).toString("hex");
    const src = (
      await db.query(
        "INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES (gen_random_uuid(), $1, 'bench', $2, now()) RETURNING id",
        [ws.id, writeKey],
      )
    ).rows[0];
    const d = (
      await db.query(
        "INSERT INTO destinations (id, workspace_id, name, urls, updated_at) VALUES (gen_random_uuid(), $1, 'd', ARRAY['http://127.0.0.1:9/hook'], now()) RETURNING id",
        [ws.id],
      )
    ).rows[0];
    await db.query("INSERT INTO destination_sources (destination_id, source_id) VALUES ($1, $2)", [d.id, src.id]);
    if (process.env.BENCH_SETUP_SQL) await db.query(process.env.BENCH_SETUP_SQL);
    const source = (await findSourceByWriteKey(writeKey))!;
    let n = 0;
    const batch = () => {
      const receivedAt = new Date();
      const accepted = Array.from({ length: BATCH }, (_, index) => {
        const i = n++;
        const r = normaliseMessage({
          raw: {
            type: "track",
            event: "Order Completed",
            userId: `user-${i % 5000}`,
            anonymousId: `anon-${(i * 7919) % 100000}-3f6c2a`,
            messageId: crypto.randomUUID(),
            timestamp: receivedAt.toISOString(),
            properties: { orderId: `ord-${i}`, total: 129.9, currency: "EUR", url: "https://shop.example.com/checkout/complete?step=3" },
            context: { library: { name: "@segment/analytics-node", version: "3.1.0" }, ip: "203.0.113.7", locale: "en-GB" },
          },
          index,
          endpointType: null,
          defaults: { context: null, integrations: null, sentAt: null, sentAtIso: null },
          sentBytes: null,
          receivedAt: { ms: receivedAt.getTime(), iso: receivedAt.toISOString() },
          newMessageId: crypto.randomUUID,
        });
        if (!r.ok) throw new Error(r.rejection.reason);
        return r.message;
      });
      return { source, receivedAt: receivedAt.toISOString(), accepted, rejections: [] };
    };
    for (let i = 0; i < 30; i++) await storeCall(batch());
    await db.query("CHECKPOINT");
    const inputs = Array.from({ length: BATCHES }, batch);
    const stop = await measureCpu(db, null);
    const t = performance.now();
    for (const input of inputs) await storeCall(input);
    const ms = performance.now() - t;
    const cpu = await stop();
    const per = (x: number) => ((x * 1000) / (BATCHES * BATCH)).toFixed(1);
    console.log(
      `store: ${BATCHES} × ${BATCH} events in ${ms.toFixed(0)} ms; CPU ms per 1,000 events: postgres ${per(cpu.pgMs)} + node ${per(cpu.benchMs)}`,
    );
    await createRawTable(db);
    const texts = inputs.map((input) => input.accepted.map((m) => m.payloadJson));
    const stopCeiling = await measureCpu(db, null);
    for (const batchTexts of texts) await rawStore(db, batchTexts);
    const ceiling = await stopCeiling();
    console.log(`ceiling (raw store): CPU ms per 1,000 events: postgres ${per(ceiling.pgMs)} + node ${per(ceiling.benchMs)}`);
    printResult("store-cost", costRatio(cpu.pgMs + cpu.benchMs, ceiling.pgMs + ceiling.benchMs), {
      pg_ms_per_1000: per(cpu.pgMs),
      node_ms_per_1000: per(cpu.benchMs),
      ceiling_pg_ms_per_1000: per(ceiling.pgMs),
    });
  } finally {
    await close();
  }
}

runBench(main);
