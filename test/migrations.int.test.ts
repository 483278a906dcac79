// The migrations in prisma/migrations build exactly the database schema.prisma describes,
// apply once, and refuse to run when an applied migration was edited afterwards.

import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, appendFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { describe, it, expect } from "vitest";
import { migrate, migrationChecksum } from "../lib/platform/migrate";
import { diffSchemas } from "../scripts/new-migration";
import { adminUrl, createTestDatabase } from "./harness/pg";

const migrationsDir = fileURLToPath(new URL("../prisma/migrations", import.meta.url));
const schemaPath = fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url));
const migrationNames = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Hand-written SQL that Prisma's schema cannot express, like the CHECK constraints: triggers and
 * their functions (prisma/migrations/*_capture_raw_bodies keeps capture_bins.stored_bytes,
 * *_source_routing_version and *_tracking_plans bump sources.routing_version).
 */
const HAND_WRITTEN_TRIGGER =
  /^CREATE TRIGGER (captured_requests_bytes_(in|out)|destination_sources_routing_version|destinations_routing_version|sources_tracking_plan_routing_version|tracking_plans_routing_version) /;
const HAND_WRITTEN_FUNCTION =
  /CREATE FUNCTION public\.(captured_requests_count_bytes|bump_source_routing_version|bump_routing_version_on_plan_link|bump_routing_version_on_plan_version)\(\)[\s\S]*?\n\$\$;/g;
/**
 * Partial indexes (prisma/migrations/*_ingest_index_diet, *_messages_partial_indexes, *_delivery_batches, *_backfills,
 * *_pending_deliveries_index, *_tracking_plan_violations, *_ordered_delivery):
 * schema.prisma describes them without their WHERE. Each is named with its exact predicate, so any
 * other WHERE still shows as a difference.
 */
const HAND_WRITTEN_PARTIAL_INDEXES: Record<string, string> = {
  messages_workspace_id_anonymous_id_idx: "(user_id IS NULL)",
  messages_source_id_received_at_idx: "(source_id IS NOT NULL)",
  messages_workspace_id_event_timestamp_idx: "(event IS NOT NULL)",
  attempts_batch_id_idx: "(batch_id IS NOT NULL)",
  deliveries_backfill_id_state_idx: "((backfill_id IS NOT NULL) AND (state = 'pending'::text))",
  deliveries_backfill_id_message_row_id_key: "(backfill_id IS NOT NULL)",
  deliveries_pending_idx: "(state = 'pending'::text)",
  deliveries_order_idx: "((order_key IS NOT NULL) AND (state <> 'delivered'::text) AND (state <> 'failed'::text))",
  deliveries_held_idx: "((held_since IS NOT NULL) AND (state <> 'delivered'::text) AND (state <> 'failed'::text))",
  messages_violations_idx: "(violations IS NOT NULL)",
};
const withoutPartialPredicate = (statement: string) => {
  const m = /^(CREATE (?:UNIQUE )?INDEX (\w+) ON public\.(?:messages|deliveries|attempts) USING btree \([^)]*\)) WHERE (.*)$/.exec(
    statement,
  );
  return m && HAND_WRITTEN_PARTIAL_INDEXES[m[2]] === m[3] ? m[1] : statement;
};
/**
 * Expression indexes (prisma/migrations/*_attempt_lookups_by_day): schema.prisma describes them with
 * started_at, the column the expression reads, in its place. Only these names, and only with this
 * exact expression, are read so: any other expression still shows as a difference.
 */
const ATTEMPT_DAY = "(((started_at AT TIME ZONE 'UTC'::text))::date)";
const DAY_KEYED_INDEXES = new Set(["attempts_workspace_id_started_day_message_id_idx", "attempts_workspace_id_started_day_user_id_idx"]);
const withoutIndexExpression = (statement: string) => {
  const m = /^CREATE INDEX (\w+) ON /.exec(statement);
  return m && DAY_KEYED_INDEXES.has(m[1]) ? statement.replace(ATTEMPT_DAY, "started_at") : statement;
};

/** The public schema's DDL, without _prisma_migrations, in an order-independent form. */
async function schemaDump(url: string, opts: { withoutChecks?: boolean } = {}): Promise<string[]> {
  const { stdout } = await promisify(execFile)("pg_dump", [
    "--schema-only",
    "--no-owner",
    "--no-privileges",
    // TOAST compression (prisma/migrations/*_batch_bodies_lz4) is storage, which schema.prisma cannot describe.
    "--no-toast-compression",
    "--schema=public",
    "--exclude-table=_prisma_migrations",
    `--dbname=${url}`,
  ]);
  const lines = stdout
    .split("\n")
    .filter(
      (line) =>
        line.trim() !== "" && !line.startsWith("--") && !line.startsWith("\\") && !/^(SET|SELECT pg_catalog\.set_config)\b/.test(line),
    );
  const ddl = lines.join("\n");
  // A function body holds ";" of its own: taken out whole, before the dump is split into statements.
  return (opts.withoutChecks ? ddl.replace(HAND_WRITTEN_FUNCTION, "") : ddl)
    .split(/;\n|;$/)
    .map((statement) => statement.trim())
    .filter(Boolean)
    .filter((statement) => !(opts.withoutChecks && HAND_WRITTEN_TRIGGER.test(statement)))
    .map((statement) => (opts.withoutChecks ? withoutIndexExpression(withoutPartialPredicate(statement)) : statement))
    .map((statement) => {
      // A column added by a later migration sits last in the migrated table: ignore column order.
      const table = /^(CREATE TABLE [^(]+\()\n([\s\S]*)\n(\))$/.exec(statement);
      if (!table) return statement;
      const columns = table[2]
        .split("\n")
        .map((line) => line.trim().replace(/,$/, ""))
        // CHECK constraints are hand-written SQL that Prisma's schema cannot express (see below).
        .filter((line) => !(opts.withoutChecks && /^CONSTRAINT \S+_check CHECK /.test(line)))
        .sort();
      return `${table[1]}\n${columns.join(",\n")}\n${table[3]}`;
    })
    .sort();
}

/** Every status column and the values its CHECK constraint allows (prisma/migrations/*_status_checks). */
const CHECKED: { table: string; column: string; allowed: string[] }[] = [
  { table: "memberships", column: "role", allowed: ["owner", "admin", "viewer"] },
  { table: "destinations", column: "mode", allowed: ["any", "every"] },
  { table: "destinations", column: "ordering", allowed: ["none", "perUser"] },
  { table: "messages", column: "origin", allowed: ["api", "audience", "deletion", "test"] },
  { table: "deliveries", column: "state", allowed: ["pending", "delivered", "failed"] },
  { table: "attempts", column: "outcome", allowed: ["success", "retry", "failed"] },
  { table: "attempts", column: "error_kind", allowed: ["timeout", "connection", "dns", "tls", "ssrf", "http", "internal", "auth"] },
  { table: "audience_syncs", column: "status", allowed: ["queued", "running", "completed", "failed", "skipped"] },
  { table: "audience_syncs", column: "trigger", allowed: ["manual", "schedule", "created", "updated"] },
  { table: "deletion_requests", column: "status", allowed: ["pending", "running", "completed", "failed"] },
  { table: "metric_instances", column: "role", allowed: ["web", "worker", "ingest", "stopped", "retired"] },
  { table: "endpoint_alerts", column: "reason", allowed: ["failing", "success_rate", "certificate"] },
  { table: "endpoint_alerts", column: "resolution", allowed: ["recovered", "reenabled", "removed"] },
  { table: "tracking_plans", column: "violations", allowed: ["flag", "block"] },
  { table: "tracking_plans", column: "unplanned", allowed: ["allow", "flag", "block"] },
];

describe("prisma/migrations", () => {
  it("apply to an empty database once, recorded as Prisma records them", { timeout: 60_000 }, async () => {
    expect(migrationNames.length).toBeGreaterThan(0);
    const db = await createTestDatabase({ migrate: false });
    try {
      expect((await migrate(db.url)).applied).toEqual(migrationNames);
      expect((await migrate(db.url)).applied).toEqual([]);

      const rows = await query<{
        migration_name: string;
        checksum: string;
        applied_steps_count: number;
        finished_at: Date | null;
        rolled_back_at: Date | null;
      }>(
        db.url,
        `SELECT migration_name, checksum, applied_steps_count, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY migration_name`,
      );
      expect(rows.map((row) => row.migration_name)).toEqual(migrationNames);
      for (const row of rows) {
        const script = readFileSync(join(migrationsDir, row.migration_name, "migration.sql"));
        expect(row.checksum).toBe(migrationChecksum(script.toString("utf8")));
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.applied_steps_count).toBe(1);
        expect(row.finished_at).toBeInstanceOf(Date);
        expect(row.rolled_back_at).toBeNull();
      }
    } finally {
      await db.drop();
    }
  });

  it("serialize concurrent runs: each migration is applied exactly once", { timeout: 60_000 }, async () => {
    const db = await createTestDatabase({ migrate: false });
    try {
      const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url)]);
      expect(results.flatMap((result) => result.applied).sort()).toEqual(migrationNames);
      const rows = await query<{ count: string }>(db.url, `SELECT count(*) FROM "_prisma_migrations"`);
      expect(Number(rows[0].count)).toBe(migrationNames.length);
    } finally {
      await db.drop();
    }
  });

  it("build the same database as schema.prisma describes", { timeout: 60_000 }, async () => {
    const migrated = await createTestDatabase();
    const fromSchema = await createTestDatabase({ migrate: false });
    try {
      const sql = await diffSchemas({ from: null, to: readFileSync(schemaPath, "utf8"), databaseUrl: adminUrl() });
      expect(sql).toBeTruthy();
      await query(fromSchema.url, sql!);

      const expected = await schemaDump(fromSchema.url);
      expect(expected.some((statement) => statement.startsWith("CREATE TABLE public.workspaces"))).toBe(true);
      expect(await schemaDump(migrated.url, { withoutChecks: true })).toEqual(expected);
    } finally {
      await migrated.drop();
      await fromSchema.drop();
    }
  });

  it("constrain every status column to the values the code writes", { timeout: 60_000 }, async () => {
    const db = await createTestDatabase();
    try {
      const checks = await query<{ table: string; column: string; def: string }>(
        db.url,
        `SELECT c.conrelid::regclass::text AS table, a.attname AS column, pg_get_constraintdef(c.oid) AS def
           FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
          WHERE c.contype = 'c' AND c.connamespace = 'public'::regnamespace ORDER BY 1, 2`,
      );
      expect(checks.map((c) => `${c.table}.${c.column}`)).toEqual(CHECKED.map((c) => `${c.table}.${c.column}`).sort());
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        for (const { table, column, allowed } of CHECKED) {
          // A copy of the table with its CHECK constraints and no NOT NULLs: one column can be probed alone.
          await client.query(`DROP TABLE IF EXISTS probe; CREATE TEMP TABLE probe (LIKE ${table} INCLUDING CONSTRAINTS)`);
          await client.query(`DO $$ DECLARE c record; BEGIN
            FOR c IN SELECT attname FROM pg_attribute WHERE attrelid = 'probe'::regclass AND attnum > 0 AND attnotnull LOOP
              EXECUTE format('ALTER TABLE probe ALTER COLUMN %I DROP NOT NULL', c.attname);
            END LOOP; END $$`);
          for (const value of allowed) await client.query(`INSERT INTO probe (${column}) VALUES ($1)`, [value]);
          await expect(client.query(`INSERT INTO probe (${column}) VALUES ('bogus')`)).rejects.toMatchObject({ code: "23514" });
        }
      } finally {
        await client.end();
      }
    } finally {
      await db.drop();
    }
  });

  it("keep capture_bins.stored_bytes equal to its requests' body bytes through inserts, deletes and cascades", {
    timeout: 60_000,
  }, async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const ws = (await client.query("INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'w') RETURNING id")).rows[0].id;
      await client.query("INSERT INTO capture_bins (id, workspace_id) VALUES ('a', $1), ('b', $1)", [ws]);
      await client.query(
        `INSERT INTO captured_requests (bin_id, method, path, headers, body, body_size)
         SELECT CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, 'POST', '/', '{}', decode(repeat('ff', g), 'hex'), g FROM generate_series(1, 20) g`,
      );
      const drift = () =>
        query<{ id: string; stored: string; actual: string }>(
          db.url,
          `SELECT b.id, b.stored_bytes AS stored, coalesce(sum(octet_length(r.body)), 0) AS actual
             FROM capture_bins b LEFT JOIN captured_requests r ON r.bin_id = b.id GROUP BY b.id ORDER BY b.id`,
        );
      expect((await drift()).map((r) => [r.id, Number(r.stored), Number(r.actual)])).toEqual([
        ["a", 110, 110],
        ["b", 100, 100],
      ]);
      await client.query("DELETE FROM captured_requests WHERE id IN (SELECT id FROM captured_requests ORDER BY id LIMIT 5)");
      for (const r of await drift()) expect(Number(r.stored), r.id).toBe(Number(r.actual));
      await client.query("DELETE FROM capture_bins WHERE id = 'a'");
      expect((await drift()).map((r) => r.id)).toEqual(["b"]);
      await client.query("DELETE FROM workspaces");
      expect(await drift()).toEqual([]);
    } finally {
      await client.end();
      await db.drop();
    }
  });

  it("refuse to run when an applied migration was changed", { timeout: 60_000 }, async () => {
    const copy = mkdtempSync(join(tmpdir(), "eventrail-migrations-"));
    const db = await createTestDatabase({ migrate: false });
    try {
      cpSync(migrationsDir, copy, { recursive: true });
      await migrate(db.url, { migrationsDir: copy });

      const first = migrationNames[0];
      appendFileSync(join(copy, first, "migration.sql"), "\n-- edited after it was applied\n");
      await expect(migrate(db.url, { migrationsDir: copy })).rejects.toThrow(
        new RegExp(`migration ${first} was changed after it was applied`),
      );
    } finally {
      await db.drop();
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
