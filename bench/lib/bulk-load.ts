/**
 * Bulk loads for the benches that need a large table before they measure (bench:growth, and
 * bench:deliver's BENCH_LOG_PRELOAD): INSERT … SELECT generate_series with the table's secondary
 * indexes dropped and rebuilt afterwards, the same definitions read from pg_indexes.
 */
import type pg from "pg";

/**
 * Runs `fill(from, to)` in chunks with the table's secondary indexes dropped, then rebuilds them.
 * `randomIndexes` are built as inserts at random keys would have left them: Postgres builds an
 * index's leaves 90 % full, while leaves split 50/50 by random keys settle at ~70 % (ln 2), so a
 * freshly built one has ~30 % fewer leaves and splits far more often at first than the index
 * ingest grew over months (docs/architecture.md#growth).
 */
export async function bulkLoad(
  db: pg.ClientBase,
  table: string,
  total: number,
  fill: (from: number, to: number) => Promise<void>,
  opts: { chunk?: number; randomIndexes?: string[]; log: (m: string) => void },
) {
  const chunk = opts.chunk ?? 1_000_000;
  const randomIndexes = opts.randomIndexes ?? [];
  const t0 = performance.now();
  const { rows: indexes } = await db.query<{ name: string; def: string }>(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
     WHERE i.tablename = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [table],
  );
  for (const i of indexes) await db.query(`DROP INDEX "${i.name}"`);
  for (let from = 1; from <= total; from += chunk) await fill(from, Math.min(total, from + chunk - 1));
  await db.query("SET maintenance_work_mem = '256MB'");
  for (const i of indexes) {
    if (!randomIndexes.includes(i.name)) await db.query(i.def);
    else {
      await db.query(`${i.def} WITH (fillfactor = 70)`);
      await db.query(`ALTER INDEX "${i.name}" RESET (fillfactor)`); // as the migration made it
    }
  }
  await db.query(`ANALYZE ${table}`);
  opts.log(
    `${table}: ${total.toLocaleString("en-US")} rows loaded and ${indexes.length} indexes rebuilt in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}

/** The attempts' users: row g belongs to `user-<g % ATTEMPT_USERS>`. */
export const ATTEMPT_USERS = 50_000;
/** How many of loadAttempts' `total` rows belong to `user-<user>`. */
export const attemptsOfUser = (total: number, user: number) =>
  total < user ? 0 : Math.floor((total - user) / ATTEMPT_USERS) + (user === 0 ? 0 : 1);

/**
 * The log's indexes on keys in no time order (within a day, since *_attempt_lookups_by_day), by
 * either migration's names (a bench run against a commit from before it builds them the same way):
 * rebuilt as random inserts leave them (bulkLoad's `randomIndexes`).
 */
const RANDOM_ATTEMPT_INDEXES = [
  "attempts_workspace_id_message_id_idx",
  "attempts_workspace_id_user_id_idx",
  "attempts_workspace_id_started_day_message_id_idx",
  "attempts_workspace_id_started_day_user_id_idx",
];

/**
 * `total` attempts of one workspace over the last `days` days: ids ascend with time; destination
 * and outcome (85 % success, 10 % retry, 5 % failed) hashed apart, the destinations taking turns;
 * ATTEMPT_USERS users.
 */
export async function loadAttempts(
  db: pg.ClientBase,
  o: {
    workspaceId: string;
    destinations: string[];
    total: number;
    days: number;
    /** message ids `msg-<n>` (a lookup can name one), or random UUIDs as most SDKs send (`uuid`) */
    messageIds?: "numbered" | "uuid";
    log: (m: string) => void;
  },
) {
  await bulkLoad(
    db,
    "attempts",
    o.total,
    (from, to) =>
      db
        .query(
          `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url,
                                 attempt_number, started_at, duration_ms, request_headers, request_body, response_status,
                                 response_headers, response_body, outcome)
           SELECT $1, md5(g::text)::uuid, ($2::uuid[])[1 + h.d % cardinality($2::uuid[])], md5('m' || g)::uuid, ${o.messageIds === "uuid" ? "md5('msg-' || g)::uuid::text" : "'msg-' || g"}, 'track', 'user-' || (g % $7),
                  'https://hooks' || (1 + h.d) || '.example.com/eventrail', 1,
                  now() - make_interval(days => $6) + g * (make_interval(days => $6) / $5),
                  20 + (hashint4(g) & 511), '{"content-type":"application/json","user-agent":"Eventrail.io/1.0"}'::jsonb,
                  '{"version":1,"type":"track","userId":"user-' || g || '","event":"Order Completed","properties":{"total":42}}',
                  CASE WHEN h.o < 5 THEN 500 WHEN h.o < 15 THEN 503 ELSE 200 END, '{"content-type":"application/json"}'::jsonb, '{"ok":true}',
                  CASE WHEN h.o < 5 THEN 'failed' WHEN h.o < 15 THEN 'retry' ELSE 'success' END
           FROM generate_series($3::int, $4::int) AS g,
                LATERAL (SELECT (hashint4(g) & 2147483647) % 5 AS d, (hashint4(-g) & 2147483647) % 100 AS o) AS h`,
          [o.workspaceId, o.destinations, from, to, o.total, o.days, ATTEMPT_USERS],
        )
        .then(() => {}),
    { randomIndexes: RANDOM_ATTEMPT_INDEXES, log: o.log },
  );
}

/**
 * The deliveries of loadAttempts' rows, one per attempt row g (its delivery_id, message and destination;
 * created at its start), as the log by message reads them: ended by the attempt's outcome (success
 * delivered, failed failed, retry still pending), one attempt each. Loaded after the attempts, with
 * the table's indexes rebuilt as bulkLoad does.
 */
export async function loadDeliveries(db: pg.ClientBase, o: { workspaceId: string; total: number; days: number; log: (m: string) => void }) {
  await bulkLoad(
    db,
    "deliveries",
    o.total,
    (from, to) =>
      db
        .query(
          `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, state, attempt_count, first_attempt_at, last_attempt_at,
                                   last_status, last_error, created_at, updated_at, delivered_at)
           SELECT a.delivery_id, a.workspace_id, a.message_row_id, a.destination_id,
                  CASE a.outcome WHEN 'success' THEN 'delivered' WHEN 'failed' THEN 'failed' ELSE 'pending' END, 1, a.started_at, a.started_at,
                  a.response_status, CASE WHEN a.outcome <> 'success' THEN 'HTTP ' || a.response_status END, a.started_at, a.started_at,
                  CASE WHEN a.outcome = 'success' THEN a.started_at END
             FROM attempts a WHERE a.workspace_id = $1 AND a.id BETWEEN $2 AND $3`,
          [o.workspaceId, from, to],
        )
        .then(() => {}),
    { log: o.log },
  );
}
