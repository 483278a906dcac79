/**
 * What a benchmark phase wrote to the WAL and read from outside shared buffers, per relation of the
 * benchmark's own database (docs/architecture.md#growth): WAL records, full-page images (the 8 KB
 * copy of a page that its first change after a checkpoint writes) and WAL bytes, read from the WAL
 * itself with pg_walinspect — so the neighbours' writes on a shared server are not counted — and
 * the blocks each relation read (from the OS) or found in shared buffers, from pg_statio.
 * Needs a superuser (pg_walinspect, a replication slot); without one, only the pg_statio columns are printed.
 */
import type pg from "pg";

type Queryable = Pick<pg.Pool, "query">;

const SLICES = 16;
const SLICE_BYTES = 16 * 1024 * 1024;
type Io = Map<string, { read: number; hit: number }>;

async function io(db: Queryable): Promise<Io> {
  const { rows } = await db.query<{ name: string; read: string; hit: string }>(
    `SELECT relname AS name, heap_blks_read AS read, heap_blks_hit AS hit FROM pg_statio_user_tables WHERE schemaname = 'public'
     UNION ALL
     SELECT indexrelname, idx_blks_read, idx_blks_hit FROM pg_statio_user_indexes WHERE schemaname = 'public'`,
  );
  return new Map(rows.map((r) => [r.name, { read: Number(r.read), hit: Number(r.hit) }]));
}

export type WalRow = { relation: string; records: number; fpi: number; fpiMb: number; walMb: number; blksRead: number; blksHit: number };
export type WalUse = {
  rows: WalRow[];
  total: { records: number; fpi: number; walMb: number };
  /** The whole server's, from pg_stat_wal: exact, and the window's own on a server only the benchmark uses. */
  server: { records: number; fpi: number; walMb: number };
};

async function walStats(db: Queryable) {
  const { rows } = await db.query<{ records: string; fpi: string; bytes: string }>(
    "SELECT wal_records AS records, wal_fpi AS fpi, wal_bytes AS bytes FROM pg_stat_wal",
  );
  return { records: Number(rows[0].records), fpi: Number(rows[0].fpi), walMb: Number(rows[0].bytes) / 1e6 };
}

/** Starts a window; the returned function closes it and gives what each relation wrote and read. */
export async function walWindow(db: Queryable): Promise<() => Promise<WalUse>> {
  let inspect = true;
  try {
    await db.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
    await db.query("SELECT 1 FROM pg_replication_slots LIMIT 0");
  } catch {
    inspect = false;
  }
  // A temporary replication slot keeps the window's WAL from being recycled by a checkpoint (on a
  // shared server, the neighbours' WAL makes checkpoints come often) until it is read.
  const slot = `growth_wal_${process.pid}`;
  if (inspect) await db.query("SELECT pg_create_physical_replication_slot($1, true, true)", [slot]);
  const start = (await db.query<{ lsn: string }>("SELECT pg_current_wal_flush_lsn()::text AS lsn")).rows[0].lsn;
  const before = await io(db);
  const statsBefore = await walStats(db);
  return async () => {
    // Backends report their I/O counters when idle, at most once a second.
    await new Promise((r) => setTimeout(r, 1_100));
    const after = await io(db);
    const statsAfter = await walStats(db);
    const server = {
      records: statsAfter.records - statsBefore.records,
      fpi: statsAfter.fpi - statsBefore.fpi,
      walMb: statsAfter.walMb - statsBefore.walMb,
    };
    const wal = new Map<string, { records: number; fpi: number; fpiBytes: number; bytes: number }>();
    if (inspect) {
      try {
        type Row = { name: string; records: string; fpi: string; fpi_bytes: string; bytes: string };
        const add = (rows: Row[], scale: number) => {
          for (const r of rows) {
            const w = wal.get(r.name) ?? { records: 0, fpi: 0, fpiBytes: 0, bytes: 0 };
            wal.set(r.name, {
              records: w.records + Number(r.records) * scale,
              fpi: w.fpi + Number(r.fpi) * scale,
              fpiBytes: w.fpiBytes + Number(r.fpi_bytes) * scale,
              bytes: w.bytes + Number(r.bytes) * scale,
            });
          }
        };
        const blockInfo = (await db.query("SELECT to_regproc('pg_get_wal_block_info') IS NOT NULL AS v16")).rows[0].v16;
        if (!blockInfo) {
          // Postgres 15: records' block references as text.
          const { rows } = await db.query<Row>(
            `WITH r AS (
             SELECT substring(block_ref FROM 'rel \\d+/\\d+/(\\d+)')::oid AS node,
                    (length(block_ref) - length(replace(block_ref, '(FPW)', ''))) / 5 AS fpi, fpi_length, record_length
             FROM pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn())
             WHERE block_ref LIKE '%/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/%')
           SELECT coalesce(c.relname, 'oid ' || r.node) AS name, count(*) AS records, sum(r.fpi) AS fpi,
                  sum(r.fpi_length) AS fpi_bytes, sum(r.record_length) AS bytes
           FROM r LEFT JOIN pg_class c ON c.relfilenode = r.node
           GROUP BY 1`,
            [start],
          );
          add(rows, 1);
        } else {
          // Postgres 16+: one row per block a record changes. A long window's WAL (gigabytes) takes
          // minutes to decode whole; then SLICES evenly spaced slices of it are read, which sample
          // every part of a checkpoint cycle alike, and scaled up.
          const windowBytes = Number(
            (await db.query<{ n: string }>("SELECT pg_current_wal_flush_lsn() - $1::pg_lsn AS n", [start])).rows[0].n,
          );
          const slices =
            windowBytes <= SLICES * SLICE_BYTES
              ? [{ offset: 0, length: windowBytes }]
              : Array.from({ length: SLICES }, (_, i) => ({ offset: Math.floor((i * windowBytes) / SLICES), length: SLICE_BYTES }));
          const scale = windowBytes / slices.reduce((sum, x) => sum + x.length, 0);
          for (const { offset, length } of slices) {
            const { rows } = await db.query<Row>(
              `WITH b AS (
                 SELECT relfilenode AS node, block_fpi_length,
                        block_data_length + coalesce(block_fpi_length, 0) + CASE WHEN block_id = 0 THEN main_data_length ELSE 0 END AS bytes
                 FROM pg_get_wal_block_info($1::pg_lsn + $2::numeric, $1::pg_lsn + $3::numeric, false)
                 WHERE reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()))
               SELECT coalesce(c.relname, 'oid ' || b.node) AS name, count(*) AS records,
                      count(*) FILTER (WHERE b.block_fpi_length > 0) AS fpi, coalesce(sum(b.block_fpi_length), 0) AS fpi_bytes, sum(b.bytes) AS bytes
               FROM b LEFT JOIN pg_class c ON c.relfilenode = b.node
               GROUP BY 1`,
              [start, offset, offset + length],
            );
            add(rows, scale);
          }
        }
      } finally {
        await db.query("SELECT pg_drop_replication_slot($1)", [slot]);
      }
    }
    const names = new Set([...wal.keys(), ...after.keys()]);
    const out: WalRow[] = [];
    for (const relation of names) {
      const w = wal.get(relation);
      const a = after.get(relation);
      const b = before.get(relation);
      const row = {
        relation,
        records: w?.records ?? 0,
        fpi: w?.fpi ?? 0,
        fpiMb: (w?.fpiBytes ?? 0) / 1e6,
        walMb: (w?.bytes ?? 0) / 1e6,
        blksRead: (a?.read ?? 0) - (b?.read ?? 0),
        blksHit: (a?.hit ?? 0) - (b?.hit ?? 0),
      };
      if (row.records + row.blksRead + row.blksHit > 0) out.push(row);
    }
    out.sort((x, y) => y.walMb - x.walMb || y.blksRead + y.blksHit - (x.blksRead + x.blksHit));
    const total = out.reduce((t, r) => ({ records: t.records + r.records, fpi: t.fpi + r.fpi, walMb: t.walMb + r.walMb }), {
      records: 0,
      fpi: 0,
      walMb: 0,
    });
    return { rows: out, total, server };
  };
}

/** Prints a window's rows, per `events` (e.g. per 1,000 events), as an indented table. */
export function printWal(use: WalUse, events: number, print: (line: string) => void) {
  const per = (n: number) => ((n * 1000) / events).toFixed(1);
  print(
    `WAL per 1,000 events: ${per(use.total.records)} records, ${per(use.total.fpi)} full-page images, ${per(use.total.walMb)} MB (this database's relations); whole server (pg_stat_wal): ${per(use.server.records)} records, ${per(use.server.fpi)} full-page images, ${per(use.server.walMb)} MB`,
  );
  print("  relation                                        records   fpi   fpi MB  wal MB  blks read   blks hit   (per 1,000 events)");
  for (const r of use.rows.slice(0, 16))
    print(
      `  ${r.relation.padEnd(46)} ${per(r.records).padStart(8)} ${per(r.fpi).padStart(6)} ${per(r.fpiMb).padStart(7)} ${per(r.walMb).padStart(7)} ${per(r.blksRead).padStart(10)} ${per(r.blksHit).padStart(10)}`,
    );
}
