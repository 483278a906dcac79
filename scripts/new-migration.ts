// `npm run db:migration:new -- <name> [--empty]`
//
// Writes prisma/migrations/<YYYYMMDDHHMMSS>_<name>/migration.sql with the SQL that takes the
// database from the schema of the last migration to the current prisma/schema.prisma.
//
// Prisma's CLI needs its native schema engine for `migrate dev`, which cannot be downloaded
// here, so this uses the same engine compiled to WebAssembly (@prisma/schema-engine-wasm).
// The schema the last migration was generated from is kept in
// prisma/migrations/schema.snapshot.prisma; the new migration is the diff snapshot → schema.
// The engine needs a live Postgres connection even to diff two schema files (it asks the server
// for its version); it only reads. It uses DATABASE_URL, or the local server's `postgres` db.
//
// `--empty` writes an empty migration (and no snapshot change) for hand-written SQL.

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const migrationsDir = fileURLToPath(new URL("../prisma/migrations/", import.meta.url));
const schemaPath = fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url));
const snapshotPath = `${migrationsDir}schema.snapshot.prisma`;
const defaultDatabaseUrl = "postgresql://postgres@127.0.0.1:5432/postgres";

/** The subset of @prisma/schema-engine-wasm's SchemaEngine this module uses. */
interface WasmSchemaEngine {
  diff(params: unknown): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
}

let engineModule: Promise<{ SchemaEngine: { new: (...args: unknown[]) => Promise<WasmSchemaEngine> } }> | undefined;

/** Loads the wasm module once per process (the package's own entry needs --experimental-wasm-modules). */
function loadEngineModule() {
  engineModule ??= (async () => {
    const require = createRequire(import.meta.url);
    const bgPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bg = await import(pathToFileURL(bgPath).href);
    const wasmModule = new WebAssembly.Module(readFileSync(new URL("schema_engine_bg.wasm", pathToFileURL(bgPath))));
    const instance = new WebAssembly.Instance(wasmModule, { "./schema_engine_bg.js": bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
    return bg;
  })();
  return engineModule;
}

/**
 * The SQL script that migrates a Postgres database from the schema `from` (null: an empty
 * database) to the schema `to`, exactly as `prisma migrate diff --script` would write it.
 * Returns null when there is nothing to change.
 */
export async function diffSchemas(opts: { from: string | null; to: string; databaseUrl?: string }): Promise<string | null> {
  const { SchemaEngine } = await loadEngineModule();
  const pool = new pg.Pool({ connectionString: opts.databaseUrl ?? process.env.DATABASE_URL ?? defaultDatabaseUrl, max: 1 });
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
  let engine: WasmSchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new({ datamodels: undefined }, () => {}, adapter);
    const target = (content: string) => ({ tag: "schemaDatamodel", files: [{ path: "schema.prisma", content }] });
    const result = await engine.diff({
      from: opts.from === null ? { tag: "empty" } : target(opts.from),
      to: target(opts.to),
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
    // exitCode 2 means "the diff is not empty"
    return result.exitCode === 2 ? (result.stdout ?? "") : null;
  } finally {
    engine?.free();
    await pool.end();
  }
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

function existingMigrations(): string[] {
  if (!existsSync(migrationsDir)) return [];
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`${migrationsDir}${entry.name}/migration.sql`))
    .map((entry) => entry.name)
    .sort();
}

async function main(args: string[]): Promise<void> {
  const empty = args.includes("--empty");
  const rawName = args.find((arg) => !arg.startsWith("--"));
  if (!rawName) throw new Error("usage: npm run db:migration:new -- <name> [--empty]");
  const name = rawName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");
  if (!name) throw new Error(`"${rawName}" is not a usable migration name`);

  const existing = existingMigrations();
  const schema = readFileSync(schemaPath, "utf8");
  let sql: string | null;
  if (empty) {
    sql = "-- This is an empty migration.\n";
  } else {
    let snapshot: string | null = null;
    if (existsSync(snapshotPath)) snapshot = readFileSync(snapshotPath, "utf8");
    else if (existing.length > 0) {
      throw new Error(`${snapshotPath} is missing, so the schema of the last migration is unknown`);
    }
    sql = await diffSchemas({ from: snapshot, to: schema });
    if (sql === null) {
      // Comments and formatting only: the snapshot follows, so test/house.test.ts sees no drift.
      if (snapshot !== schema) copyFileSync(schemaPath, snapshotPath);
      console.log("schema.prisma describes the same database as the last migration; no migration written");
      return;
    }
  }

  // Directory names order the migrations: never sort before the last one.
  let stamp = timestamp(new Date());
  const last = existing.at(-1)?.slice(0, 14);
  if (last && stamp <= last) stamp = String(BigInt(last) + 1n);
  const dir = `${migrationsDir}${stamp}_${name}`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/migration.sql`, sql);
  if (!empty) copyFileSync(schemaPath, snapshotPath);
  const lockPath = `${migrationsDir}migration_lock.toml`;
  if (!existsSync(lockPath)) {
    writeFileSync(
      lockPath,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  console.log(`wrote prisma/migrations/${stamp}_${name}/migration.sql — review it before committing`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
