import path from "node:path";
import { buildIfNeeded, root } from "../../scripts/lib/build";
import { startEmbeddedPostgres } from "../../lib/platform/embedded-postgres";
import { adminUrl, createMigratedTemplate, postgresAnswers } from "./pg";

let stopPostgres: (() => Promise<void>) | undefined;
let dropTemplate: (() => Promise<void>) | undefined;

/**
 * The Postgres server the tests' throw-away databases live on: the local one
 * (TEST_DATABASE_ADMIN_URL, default 127.0.0.1:5432), or — when none answers — an embedded one
 * started here, so `npm test` works on a bare machine. Used by the integration stage (below) and the
 * end-to-end stage (e2e/global-setup.ts) alike. Returns how to stop what it started.
 */
export async function ensureTestPostgres(label: string): Promise<() => Promise<void>> {
  if (await postgresAnswers()) return async () => {};
  const asked = adminUrl();
  const db = await startEmbeddedPostgres(path.join(root, ".data", "test"));
  process.env.TEST_DATABASE_ADMIN_URL = db.url.replace(/\/eventrail$/, "/postgres");
  console.log(`[${label}] no Postgres on ${asked}; using an embedded one`);
  return () => db.stop();
}

/**
 * Integration tests need a Postgres server, a production build of the app and the processes, and
 * the migrated database each file's database is copied from (test/harness/pg.ts).
 */
export async function setup() {
  stopPostgres = await ensureTestPostgres("test");
  dropTemplate = await createMigratedTemplate();
  buildIfNeeded((m) => console.log(`[test] ${m}`));
  // The bundles are current now: the files' workers and ingest servers run them (test/harness/stack.ts).
  process.env.TEST_PROCESSES = "bundles";
}

export async function teardown() {
  await dropTemplate?.();
  await stopPostgres?.();
}
