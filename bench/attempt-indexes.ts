/**
 * `npm run bench:attempt-indexes`: what each index of the attempt log costs Postgres per attempt
 * row written (docs/webhooks.md#delivery-cost). The worker's own insert (the first half of
 * lib/delivery/record.ts RECORD_SQL, without the erasure check's join) writes the same 500-row
 * batches into copies of `attempts` that differ only in their indexes: the product's set, the set
 * less one index for each index, and the primary key alone (the ceiling: the heap row and its
 * key). The copies are written in turn, ROUNDS times over, so the machine's drift falls on all of
 * them alike. Message ids are random UUIDs, as Segment's clients send them (bench:deliver's are
 * `<tag>-<n>`, which land next to each other in the (workspace_id, message_id) index), unless
 * ATTEMPT_SEQUENTIAL_MESSAGE_IDS=1; message row ids are UUIDv7, as ingest makes them.
 * Env: ATTEMPT_ROWS (20,000 per copy and round), ATTEMPT_PRELOAD (20,000 per copy before the first
 * round, so no copy starts empty), ATTEMPT_ROUNDS (3).
 */
import crypto from "node:crypto";
import pg from "pg";
import { createTestDatabase } from "../test/harness/pg";
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { seedMessages } from "../test/harness/delivery/seed";
import { measureCpu } from "./cpu";

const N = Number(process.env.ATTEMPT_ROWS ?? 20_000);
const PRELOAD = Number(process.env.ATTEMPT_PRELOAD ?? 20_000);
const ROUNDS = Number(process.env.ATTEMPT_ROUNDS ?? 3);
const SEQUENTIAL = process.env.ATTEMPT_SEQUENTIAL_MESSAGE_IDS === "1";
const BATCH = 500;

/** The attempt log's secondary indexes as the migrations make them (prisma/schema.prisma, model Attempt). */
const INDEXES: Record<string, string> = {
  "(workspace_id, id DESC)": "(workspace_id, id DESC)",
  "(workspace_id, destination_id, id DESC, started_at)": "(workspace_id, destination_id, id DESC, started_at)",
  "(workspace_id, outcome, id DESC, destination_id, started_at)": "(workspace_id, outcome, id DESC, destination_id, started_at)",
  "(workspace_id, message_id)": "(workspace_id, message_id)",
  "(workspace_id, user_id)": "(workspace_id, user_id)",
  "(message_row_id)": "(message_row_id)",
  "BRIN (started_at)": "USING BRIN (started_at)",
};

async function main() {
  const database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  const { loadDueDeliveries } = await import("../lib/delivery/load");
  const { RECORD_SQL, recordParams } = await import("../lib/delivery/record");
  const { toAttemptRow } = await import("../lib/delivery/attempt-row");
  const { buildRequest, webhookIdOf } = await import("../lib/webhooks/request");
  const { classifyAttempt } = await import("../lib/webhooks/outcome");
  const { newRowId } = await import("../lib/tracking/row-ids");
  const db = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    // The insert alone: the recording's erasure check (a join to messages) is the same for every copy.
    const insertPart = RECORD_SQL.slice(0, RECORD_SQL.indexOf("UPDATE deliveries")).replace(
      "LEFT JOIN messages m ON m.id = x.message_row_id",
      "CROSS JOIN (SELECT '{}'::jsonb AS payload) m",
    );
    if (insertPart === RECORD_SQL.slice(0, RECORD_SQL.indexOf("UPDATE deliveries")))
      throw new Error("RECORD_SQL changed: update this bench's insert");
    const insertInto = (table: string) => `${insertPart.replace("INSERT INTO attempts", `INSERT INTO ${table}`)} SELECT 1`;

    const all = Object.keys(INDEXES);
    const copies: { name: string; table: string; indexes: string[] }[] = [
      { name: "all indexes (the product)", table: "a_all", indexes: all },
      ...all.map((ix, i) => ({ name: `without ${ix}`, table: `a_less_${i}`, indexes: all.filter((x) => x !== ix) })),
      { name: "primary key only (ceiling)", table: "a_pk", indexes: [] },
    ];
    for (const c of copies) {
      await db.query(`CREATE TABLE ${c.table} (LIKE attempts INCLUDING DEFAULTS); ALTER TABLE ${c.table} ADD PRIMARY KEY (id)`);
      for (const ix of c.indexes) await db.query(`CREATE INDEX ON ${c.table} ${INDEXES[ix]}`);
    }

    // One batch of real attempt rows (a bench:deliver message, its request built and signed, a 200),
    // re-keyed for each write as a new message of a new user would be.
    const workspaceId = await insertWorkspace(database.url);
    const destinationId = await insertDestination(database.url, {
      workspaceId,
      urls: ["http://127.0.0.1:9/hook"],
      sharedSecret: "bench-secret",
    });
    const messages = Array.from({ length: BATCH }, (_, i) => ({
      type: "track",
      userId: `user-${i}`,
      anonymousId: `anon-${i}`,
      event: "Order Completed",
      properties: { orderId: `ord-${i}`, revenue: 19.99 + (i % 100), currency: "EUR", items: [{ sku: `SKU-${i % 300}`, qty: 1 }] },
      context: { ip: "203.0.113.7", library: { name: "analytics-node", version: "6.2.0" }, locale: "de-DE" },
    }));
    const { deliveryIds } = await seedMessages(database.url, { workspaceId, destinationIds: [destinationId], messages });
    const { deliveries } = await loadDueDeliveries(db, deliveryIds);
    const now = new Date();
    const result = { kind: "response" as const, status: 200, headers: { "content-type": "text/plain", "content-length": "2" }, body: "ok" };
    const template = deliveries.map((d) =>
      toAttemptRow({
        workspaceId: d.workspaceId,
        deliveryId: d.id,
        destinationId: d.destinationId,
        messageRowId: d.messageRowId,
        message: d.message,
        url: d.destination.urls[0],
        attemptNumber: 1,
        request: buildRequest(d.destination, d.message, { now, webhookId: webhookIdOf(d.messageRowId) }),
        attempt: { startedAt: now, durationMs: 2, result },
        classification: classifyAttempt(result),
        outcome: "success",
        nextRetryAt: null,
      }),
    );
    let written = 0;
    const batch = () =>
      template.map((a) => {
        const n = written++;
        return {
          ...a,
          message_row_id: newRowId(),
          message_id: SEQUENTIAL ? `bench-${n}` : crypto.randomUUID(),
          user_id: `user-${(n * 7919) % 50_000}`,
        };
      });
    const write = async (table: string, rows: number) => {
      for (let i = 0; i < rows; i += BATCH)
        await db.query({ name: `insert-${table}`, text: insertInto(table), values: recordParams(batch(), []).slice(0, 20) });
    };

    for (const c of copies) await write(c.table, PRELOAD);
    await db.query("CHECKPOINT");
    const pgMs = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++)
      for (const c of copies) {
        const stop = await measureCpu(db, null);
        await write(c.table, N);
        pgMs.set(c.table, (pgMs.get(c.table) ?? 0) + (await stop()).pgMs);
      }

    const per = (table: string) => (pgMs.get(table)! / (N * ROUNDS)) * 1000;
    const allMs = per("a_all");
    const pkMs = per("a_pk");
    console.log(
      `[bench] ${N * ROUNDS} attempt rows per copy in batches of ${BATCH} (after ${PRELOAD} preloaded); message ids ${SEQUENTIAL ? "sequential" : "random UUIDs"}`,
    );
    console.log("[bench] Postgres CPU per 1,000 attempt rows written (the ms each index costs: the copy without it, against all):");
    for (const c of copies) {
      const ms = per(c.table);
      const saves = c.table === "a_all" || c.table === "a_pk" ? "" : ` (the index costs ${(allMs - ms).toFixed(1)})`;
      console.log(`[bench]   ${c.name.padEnd(70)} ${ms.toFixed(1)} ms${saves}`);
    }
    console.log(
      `RESULT attempt-indexes all_ms_per_1000=${allMs.toFixed(1)} pk_only_ms_per_1000=${pkMs.toFixed(1)} ratio=${(pkMs / allMs).toFixed(2)}`,
    );
  } finally {
    await db.end();
    const { closeRuntime } = await import("../lib/platform/runtime");
    await closeRuntime();
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
