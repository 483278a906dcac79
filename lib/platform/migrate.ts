import "server-only";
// Applies prisma/migrations to a database, compatibly with `prisma migrate deploy`: the same
// `_prisma_migrations` table, rows and checksums, so either tool can take over from the other.
// Prisma's CLI cannot run here (its native schema engine cannot be downloaded), and the app
// applies migrations itself on start, so this is plain SQL through one `pg` client.
//
// Each migration runs in one transaction together with its `_prisma_migrations` row: it is
// either wholly applied and recorded or not at all. (So a migration cannot use statements
// that refuse to run in a transaction, such as CREATE INDEX CONCURRENTLY.)

import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The key Prisma's schema engine locks on, so this and `prisma migrate` also serialize with each other. */
const ADVISORY_LOCK_KEY = "72707369";

const defaultMigrationsDir = fileURLToPath(new URL("../../prisma/migrations", import.meta.url));

// Prisma's own DDL for the table (schema-engine, sql-schema-connector).
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Hex SHA-256 of a migration script, as Prisma records it. */
export function migrationChecksum(script: string): string {
  return createHash("sha256").update(script, "utf8").digest("hex");
}

/** Prisma accepts a script whose line endings git has changed since it was applied. */
function matchesChecksum(script: string, checksum: string): boolean {
  const variants = [script, script.replace(/\r\n/g, "\n"), script.replace(/\r?\n/g, "\r\n")];
  return variants.some((variant) => migrationChecksum(variant) === checksum);
}

interface MigrationFile {
  name: string;
  script: string;
}

function readMigrations(dir: string): MigrationFile[] {
  if (!existsSync(dir)) throw new Error(`migrations directory ${dir} does not exist`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${dir}/${entry.name}/migration.sql`))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, script: readFileSync(`${dir}/${name}/migration.sql`, "utf8") }));
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Applies the migrations not yet applied to the database, in directory-name order, and returns
 * their names. Concurrent callers wait for each other; running it again applies nothing.
 * Throws, applying nothing further, when an applied migration's file was changed afterwards or
 * when a migration failed earlier (outside this function) and was not resolved.
 */
export async function migrate(
  databaseUrl: string,
  opts: { log?: (line: string) => void; migrationsDir?: string } = {},
): Promise<{ applied: string[] }> {
  const log = opts.log ?? (() => {});
  const migrations = readMigrations(opts.migrationsDir ?? defaultMigrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1::bigint)", [ADVISORY_LOCK_KEY]);
    try {
      return { applied: await applyPending(client, migrations, log) };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [ADVISORY_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(client: pg.Client, migrations: MigrationFile[], log: (line: string) => void): Promise<string[]> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  const { rows } = await client.query<MigrationRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
  );
  const live = rows.filter((row) => row.rolled_back_at === null);

  const failed = live.filter((row) => row.finished_at === null).map((row) => row.migration_name);
  if (failed.length > 0) {
    throw new Error(
      `migration ${failed.join(", ")} failed earlier and is unresolved; fix the database by hand, then mark it rolled back (set rolled_back_at) and run again`,
    );
  }

  const applied = new Map(live.map((row) => [row.migration_name, row]));
  const known = new Set(migrations.map((migration) => migration.name));
  for (const name of applied.keys()) {
    if (!known.has(name)) log(`warning: migration ${name} is applied to the database but missing from the migrations directory`);
  }

  const pending: MigrationFile[] = [];
  for (const migration of migrations) {
    const row = applied.get(migration.name);
    if (!row) pending.push(migration);
    else if (!matchesChecksum(migration.script, row.checksum)) {
      throw new Error(
        `migration ${migration.name} was changed after it was applied (checksum ${migrationChecksum(migration.script)} ≠ recorded ${row.checksum}); restore the file and put the change in a new migration`,
      );
    }
  }

  const done: string[] = [];
  for (const migration of pending) {
    log(`applying ${migration.name}`);
    await client.query("BEGIN");
    try {
      await client.query(migration.script);
      await client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
         VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), migrationChecksum(migration.script), migration.name],
      );
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`migration ${migration.name} failed and was rolled back: ${reason}`, { cause: error });
    }
    done.push(migration.name);
  }
  return done;
}
