// Throwaway Postgres databases for integration tests, one per test file (or test), on the
// server of TEST_DATABASE_ADMIN_URL (default: the local server, user postgres).

import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { migrate } from "../../lib/platform/migrate";

export function adminUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The migrated database the integration stage's global setup leaves for the run (createMigratedTemplate):
 * a file's database is a copy of it, made in a fraction of the time migrating takes (docs/decisions/0154-ci-time.md).
 */
const TEMPLATE_ENV = "TEST_DATABASE_TEMPLATE";

/**
 * Creates an empty database `eventrail_t_<random>`, migrated unless `migrate: false`: copied from
 * the run's migrated template when there is one, else migrated here.
 */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `eventrail_t_${randomBytes(6).toString("hex")}`;
  const template = opts.migrate !== false ? process.env[TEMPLATE_ENV] : undefined;
  await withAdmin((client) => client.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;

  const drop = () =>
    withAdmin(async (client) => {
      // Let connections that are closing (pools ended a moment ago) finish on their own first:
      // terminating them mid-close surfaces as an unhandled error in the process that owned them.
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const { rows } = await client.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [name],
        );
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    });

  if (opts.migrate !== false && !template) {
    try {
      await migrate(url.href);
    } catch (error) {
      await drop();
      throw error;
    }
  }
  return { url: url.href, name, drop };
}

/**
 * Migrates one database for the whole run and names it in TEST_DATABASE_TEMPLATE, so that the
 * processes started afterwards (the test files' workers) copy it instead of migrating their own.
 * Nothing may connect to it while it is copied; nothing does: it is only ever a template.
 */
export async function createMigratedTemplate(): Promise<() => Promise<void>> {
  const db = await createTestDatabase();
  process.env[TEMPLATE_ENV] = db.name;
  return async () => {
    delete process.env[TEMPLATE_ENV];
    await db.drop();
  };
}

/**
 * A workspace and one destination in it, written with plain SQL, for tests of one statement
 * (load, record) that need the rows a delivery points at and nothing of the app.
 */
export async function insertWorkspaceAndDestination(db: Pick<pg.Pool, "query">): Promise<{ ws: string; dest: string }> {
  const ws = randomUUID();
  const dest = randomUUID();
  await db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [ws]);
  await db.query(
    "INSERT INTO destinations (id, workspace_id, name, urls, updated_at) VALUES ($1, $2, 'd', '{http://127.0.0.1:9/x}', now())",
    [dest, ws],
  );
  return { ws, dest };
}

/** Whether a Postgres server answers at adminUrl() (the local one, or TEST_DATABASE_ADMIN_URL). */
export async function postgresAnswers(timeoutMs = 3_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
