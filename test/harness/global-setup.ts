import pg from "pg";
import path from "node:path";
import { buildIfNeeded, root } from "../../scripts/lib/build";
import { startEmbeddedPostgres, type EmbeddedDb } from "../../lib/platform/embedded-postgres";
import { adminUrl } from "./pg";

let embedded: EmbeddedDb | undefined;

/**
 * Integration tests need a Postgres server and a production build of the app.
 * The server is the local one (TEST_DATABASE_ADMIN_URL, default 127.0.0.1:5432); when none
 * answers, an embedded Postgres is started so `npm test` works on a bare machine.
 */
export async function setup() {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.end();
  } catch {
    embedded = await startEmbeddedPostgres(path.join(root, ".data", "test"));
    process.env.TEST_DATABASE_ADMIN_URL = embedded.url.replace(/\/eventrail$/, "/postgres");
    console.log(`[test] no Postgres on ${adminUrl()}; using an embedded one`);
  }
  buildIfNeeded((m) => console.log(`[test] ${m}`));
}

export async function teardown() {
  await embedded?.stop();
}
