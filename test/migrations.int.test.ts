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
import { migrate, migrationChecksum } from "../lib/db/migrate";
import { diffSchemas } from "../scripts/new-migration";
import { adminUrl, createTestDatabase } from "./pg";

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

/** The public schema's DDL, without _prisma_migrations, in an order-independent form. */
async function schemaDump(url: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)("pg_dump", [
    "--schema-only",
    "--no-owner",
    "--no-privileges",
    "--schema=public",
    "--exclude-table=_prisma_migrations",
    `--dbname=${url}`,
  ]);
  const lines = stdout
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("--") && !line.startsWith("\\") && !/^(SET|SELECT pg_catalog\.set_config)\b/.test(line));
  return lines
    .join("\n")
    .split(/;\n|;$/)
    .map((statement) => statement.trim())
    .filter(Boolean)
    .map((statement) => {
      // A column added by a later migration sits last in the migrated table: ignore column order.
      const table = /^(CREATE TABLE [^(]+\()\n([\s\S]*)\n(\))$/.exec(statement);
      if (!table) return statement;
      const columns = table[2].split("\n").map((line) => line.trim().replace(/,$/, "")).sort();
      return `${table[1]}\n${columns.join(",\n")}\n${table[3]}`;
    })
    .sort();
}

describe("prisma/migrations", () => {
  it("apply to an empty database once, recorded as Prisma records them", { timeout: 60_000 }, async () => {
    expect(migrationNames.length).toBeGreaterThan(0);
    const db = await createTestDatabase({ migrate: false });
    try {
      expect((await migrate(db.url)).applied).toEqual(migrationNames);
      expect((await migrate(db.url)).applied).toEqual([]);

      const rows = await query<{ migration_name: string; checksum: string; applied_steps_count: number; finished_at: Date | null; rolled_back_at: Date | null }>(
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
      expect(await schemaDump(migrated.url)).toEqual(expected);
    } finally {
      await migrated.drop();
      await fromSchema.drop();
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
      await expect(migrate(db.url, { migrationsDir: copy })).rejects.toThrow(new RegExp(`migration ${first} was changed after it was applied`));
    } finally {
      await db.drop();
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
