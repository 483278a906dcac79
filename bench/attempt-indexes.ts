/**
 * `npm run bench:attempt-indexes`: what each index of the request log costs Postgres per attempt
 * row written (docs/decisions/0015-request-log-indexes.md). The worker's own insert (the first half of
 * lib/delivery/record.ts attemptsInsert, without the erasure check's join) writes the same 500-row
 * batches into copies of `attempts` that differ only in their indexes: the product's set, the set
 * less one index for each index, and the primary key alone (the ceiling: the heap row and its
 * key). The copies are written in turn, ROUNDS times over, so the machine's drift falls on all of
 * them alike. Message ids are random UUIDs, as Segment's clients send them, unless
 * ATTEMPT_SEQUENTIAL_MESSAGE_IDS=1 (`bench-<n>`, one narrow range, which lands next to itself in the
 * (workspace_id, message_id) index); message row ids are UUIDv7, as ingest makes them.
 * A further copy has the messageId B-tree replaced by a BRIN bloom index on message_id (a lever,
 * not built), and one has the messageId and userId indexes keyed by the id alone instead of by the
 * attempt's UTC day first (docs/decisions/0015-request-log-indexes.md). The bench ends with one
 * messageId lookup on the product's copy, the id-keyed one and the bloom one, each with its plan as
 * the planner chooses it.
 * Env: ATTEMPT_ROWS (20,000 per copy and round), ATTEMPT_PRELOAD (20,000 per copy before the first
 * round, so no copy starts empty; above 100,000 the rows are bulk-loaded with the copy's indexes
 * dropped and rebuilt, those with random keys at fillfactor 70 as a B-tree grown by random inserts
 * is, like bench:growth's), ATTEMPT_PRELOAD_DAYS (7: the bulk preload's span of history, so that the
 * day-keyed copy's today is that share of it; 30 is the default retention), ATTEMPT_ROUNDS (3),
 * ATTEMPT_ONLY (a comma list of the index names
 * below, e.g. `message_id,user_id`: only the copies without those, beside the product's, the bloom
 * one and the primary key alone; for a large preload).
 */
import crypto from "node:crypto";
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { seedMessages } from "../test/harness/delivery/seed";
import { attemptDay } from "../lib/request-log/attempt-days";
import type { Statement } from "../lib/platform/pg-columns";
import { measureCpu } from "./lib/cpu";
import { costRatio, printResult, runBench } from "./lib/result";
import { benchDatabase } from "./lib/database";

const N = Number(process.env.ATTEMPT_ROWS ?? 20_000);
const PRELOAD = Number(process.env.ATTEMPT_PRELOAD ?? 20_000);
const ROUNDS = Number(process.env.ATTEMPT_ROUNDS ?? 3);
const SEQUENTIAL = process.env.ATTEMPT_SEQUENTIAL_MESSAGE_IDS === "1";
const BATCH = 500;

const ONLY = process.env.ATTEMPT_ONLY?.split(",").map((x) => x.trim());
const BULK = PRELOAD > 100_000;

/** The attempt's UTC day: the messageId and userId indexes' second key. */
const DAY = attemptDay();
/** The request log's secondary indexes as the migrations make them (prisma/schema.prisma, model Attempt), by a short name. */
const INDEXES: Record<string, string> = {
  id: "(workspace_id, id DESC)",
  destination: "(workspace_id, destination_id, id DESC, started_at)",
  outcome: "(workspace_id, outcome, id DESC, destination_id, started_at)",
  message_id: `(workspace_id, ${DAY}, message_id)`,
  user_id: `(workspace_id, ${DAY}, user_id)`,
  message_row_id: "(message_row_id)",
  started_at: "USING BRIN (started_at)",
};
/** The messageId and userId indexes before prisma/migrations/*_attempt_lookups_by_day: keyed by the id alone. */
const BY_ID: Record<string, string> = {
  message_id_by_id: "(workspace_id, message_id)",
  user_id_by_id: "(workspace_id, user_id)",
};
/** Keys in no time order (within a day, for the product's): a bulk load rebuilds these at fillfactor 70, as random inserts leave a B-tree. */
const RANDOM_KEYS = ["message_id", "user_id", ...Object.keys(BY_ID)];
const BLOOM = "USING BRIN (message_id text_bloom_ops) WITH (pages_per_range = 32)";
const PRELOAD_DAYS = Number(process.env.ATTEMPT_PRELOAD_DAYS ?? 7);
const LOOKUP = "SELECT id FROM %T a WHERE a.workspace_id = $1 AND a.message_id = $2 ORDER BY a.id DESC LIMIT 50";
/** The product's lookup (lib/request-log/attempts.ts): every day the log may hold ($3, the retention's days and today). */
const LOOKUP_BY_DAY = `SELECT id FROM %T a WHERE a.workspace_id = $1 AND ${attemptDay("a")} = ANY($3::date[]) AND a.message_id = $2 ORDER BY a.id DESC LIMIT 50`;

async function main() {
  const { url, db, close } = await benchDatabase(1);
  const { loadDueDeliveries } = await import("../lib/delivery/load");
  const { ATTEMPT_COLUMNS, attemptsInsert } = await import("../lib/delivery/record");
  const { statement } = await import("../lib/platform/pg-columns");
  const { answeredAttempt, orderCompleted } = await import("./lib/answered-attempt");
  const { newRowId } = await import("../lib/tracking/row-ids");
  try {
    // The recording's insert alone, into each copy: the erasure check (a join to messages) is the same for every copy.
    const inserts = new Map<string, Statement<{ attempts: typeof ATTEMPT_COLUMNS }>>();
    const insertInto = (table: string) => {
      let s = inserts.get(table);
      if (!s) {
        s = statement(
          { attempts: ATTEMPT_COLUMNS },
          ({ attempts }) => `WITH logged AS (${attemptsInsert(attempts, { into: table, erasureCheck: false })}) SELECT 1`,
        );
        inserts.set(table, s);
      }
      return s;
    };

    const all = Object.keys(INDEXES);
    if (ONLY?.some((x) => !all.includes(x))) throw new Error(`ATTEMPT_ONLY: one of ${all.join(", ")}`);
    const copies: { name: string; table: string; indexes: string[] }[] = [
      { name: "all indexes (the product)", table: "a_all", indexes: all },
      ...all
        .filter((ix) => !ONLY || ONLY.includes(ix))
        .map((ix) => ({ name: `without ${INDEXES[ix]}`, table: `a_less_${ix}`, indexes: all.filter((x) => x !== ix) })),
      {
        name: "message_id as BRIN bloom, not B-tree (a lever)",
        table: "a_bloom",
        indexes: [...all.filter((x) => x !== "message_id"), "bloom"],
      },
      {
        name: "message_id and user_id keyed by the id alone (as before)",
        table: "a_by_id",
        indexes: [...all.filter((x) => x !== "message_id" && x !== "user_id"), ...Object.keys(BY_ID)],
      },
      { name: "primary key only (ceiling)", table: "a_pk", indexes: [] },
    ];
    const definition = (ix: string) => (ix === "bloom" ? BLOOM : (BY_ID[ix] ?? INDEXES[ix]));
    const createIndexes = async (c: (typeof copies)[number], random: boolean) => {
      for (const ix of c.indexes) {
        const fill = random && RANDOM_KEYS.includes(ix);
        await db.query(`CREATE INDEX ${c.table}_${ix} ON ${c.table} ${definition(ix)}${fill ? " WITH (fillfactor = 70)" : ""}`);
        if (fill) await db.query(`ALTER INDEX ${c.table}_${ix} RESET (fillfactor)`);
      }
    };
    for (const c of copies) {
      await db.query(`CREATE TABLE ${c.table} (LIKE attempts INCLUDING DEFAULTS); ALTER TABLE ${c.table} ADD PRIMARY KEY (id)`);
      if (!BULK) await createIndexes(c, false);
    }

    // One batch of real attempt rows (a bench:deliver message, its request built and signed, a 200),
    // re-keyed for each write as a new message of a new user would be.
    const workspaceId = await insertWorkspace(url);
    const destinationId = await insertDestination(url, {
      workspaceId,
      urls: ["http://127.0.0.1:9/hook"],
      sharedSecret: "bench-secret",
    });
    const messages = Array.from({ length: BATCH }, (_, i) => orderCompleted(i));
    const { deliveryIds } = await seedMessages(url, { workspaceId, destinationIds: [destinationId], messages });
    const { deliveries } = await loadDueDeliveries(db, deliveryIds);
    const now = new Date();
    const template = deliveries.map((d) => answeredAttempt(d, now));
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
        await db.query({ name: `insert-${table}`, text: insertInto(table).text, values: insertInto(table).values({ attempts: batch() }) });
    };

    if (BULK) {
      // PRELOAD_DAYS of history: ids and started_at ascending, message row ids time-ordered as ingest makes
      // them (bench/growth.ts timeOrderedId), message ids random, 50,000 users; bodies of bench:deliver's size.
      await db.query("SET maintenance_work_mem = '512MB'");
      for (const c of copies) {
        for (let from = 1; from <= PRELOAD; from += 500_000)
          await db.query(
            `INSERT INTO ${c.table} (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                                     started_at, duration_ms, request_headers, request_body, response_status, response_headers, response_body, outcome)
             SELECT $1, md5(g::text)::uuid, $2,
                    (lpad(to_hex((extract(epoch FROM now() - make_interval(days => $8) + g * (make_interval(days => $8) / $5)) * 1000)::bigint), 12, '0') || '7'
                     || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
                    md5('m' || g)::uuid::text, 'track', 'user-' || (g % 50000), 'http://127.0.0.1:9/hook', 1,
                    now() - make_interval(days => $8) + g * (make_interval(days => $8) / $5), 2, $6::jsonb, repeat('x', 460), 200, $7::jsonb, 'ok', 'success'
             FROM generate_series($3::int, $4::int) AS g`,
            [
              workspaceId,
              destinationId,
              from,
              Math.min(PRELOAD, from + 499_999),
              PRELOAD,
              JSON.stringify(template[0].request_headers),
              JSON.stringify(template[0].response_headers),
              PRELOAD_DAYS,
            ],
          );
        await createIndexes(c, true);
        await db.query(`VACUUM ANALYZE ${c.table}`);
      }
      console.log(`[bench] ${PRELOAD} rows bulk-loaded into each copy`);
    } else for (const c of copies) await write(c.table, PRELOAD);
    await db.query("CHECKPOINT");
    const pgMs = new Map<string, number>();
    const wal = new Map<string, { fpi: number; bytes: number }>();
    // A backend flushes its WAL counters to pg_stat_wal at most once a second, unless asked to at
    // the end of the current statement (Postgres 15+): without it, a copy's WAL landed on a later one.
    const walNow = async () => {
      await db.query("SELECT pg_stat_force_next_flush()");
      return (await db.query<{ fpi: string; bytes: string }>("SELECT wal_fpi AS fpi, wal_bytes AS bytes FROM pg_stat_wal")).rows[0];
    };
    for (let round = 0; round < ROUNDS; round++)
      for (const c of copies) {
        const before = await walNow();
        const stop = await measureCpu(db, null);
        await write(c.table, N);
        pgMs.set(c.table, (pgMs.get(c.table) ?? 0) + (await stop()).pgMs);
        const after = await walNow();
        const w = wal.get(c.table) ?? { fpi: 0, bytes: 0 };
        wal.set(c.table, {
          fpi: w.fpi + Number(after.fpi) - Number(before.fpi),
          bytes: w.bytes + Number(after.bytes) - Number(before.bytes),
        });
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
      const saves = c.table.startsWith("a_less_") ? ` (the index costs ${(allMs - ms).toFixed(1)})` : "";
      const w = wal.get(c.table)!;
      const perK = (x: number) => (x / (N * ROUNDS)) * 1000;
      console.log(
        `[bench]   ${c.name.padEnd(70)} ${ms.toFixed(1)} ms${saves}; WAL ${(perK(w.bytes) / 1e6).toFixed(2)} MB, ${perK(w.fpi).toFixed(0)} full-page images`,
      );
    }
    // One messageId lookup (the request log's messageId filter) on the product's copy and the bloom one.
    await db.query("VACUUM a_all, a_bloom, a_by_id"); // summarizes the bloom index's new ranges
    const days = Array.from({ length: Math.max(PRELOAD_DAYS, 30) + 2 }, (_, i) =>
      new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10),
    );
    for (const table of ["a_all", "a_by_id", "a_bloom"]) {
      // each copy's rows have message ids of their own: one written in the last round, not the last batch
      const { rows: sample } = await db.query<{ message_id: string }>(
        `SELECT message_id FROM ${table} ORDER BY id DESC OFFSET 1000 LIMIT 1`,
      );
      const sql = (table === "a_all" ? LOOKUP_BY_DAY : LOOKUP).replace("%T", table);
      const params = [workspaceId, sample[0].message_id, ...(table === "a_all" ? [days] : [])];
      const plan = (await db.query(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params)).rows;
      const line = (re: RegExp) =>
        plan
          .map((r) => r["QUERY PLAN"] as string)
          .find((l) => re.test(l))
          ?.trim();
      console.log(`[bench] messageId lookup on ${table}: ${line(/Execution Time/)}; ${line(/Scan/)}`);
    }
    printResult("attempt-indexes", costRatio(allMs, pkMs), { all_ms_per_1000: allMs, pk_only_ms_per_1000: pkMs });
  } finally {
    await close();
  }
}

runBench(main);
