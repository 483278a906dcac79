import { startApp, startWorker } from "../test/harness/stack";
import { createTestDatabase } from "../test/harness/pg";
import { ensureTestPostgres } from "../test/harness/global-setup";
import { buildIfNeeded } from "../scripts/lib/build";

/** A fresh install: new database (on an embedded Postgres when none answers), the production app and one worker. */
export default async function globalSetup() {
  buildIfNeeded((m) => console.log(`[e2e] ${m}`));
  // The bundles are current now: the worker and ingest servers run them, as `npm start` does, not the
  // sources through tsx, which compiled them again on each start (docs/decisions/0154-ci-time.md).
  process.env.TEST_PROCESSES = "bundles";
  const stopPostgres = await ensureTestPostgres("e2e");
  const db = await createTestDatabase().catch(async (err) => {
    await stopPostgres();
    throw err;
  });
  // Short retry steps so the retry story sees several retries and a 1-minute window run out in time.
  const env = { EVENTRAIL_RETRY_BASE_MS: "500", EVENTRAIL_RETRY_MAX_MS: "3000" };
  const app = await startApp(db.url, env);
  // The worker knows the app's port as `npm start`'s does: its capture URLs are the app's.
  const worker = await startWorker(db.url, { ...env, EVENTRAIL_PUBLIC_PORT: new URL(app.url).port });
  process.env.E2E_BASE_URL = app.url;
  process.env.E2E_DATABASE_URL = db.url;
  return async () => {
    await worker.stop();
    await app.stop();
    await db.drop();
    await stopPostgres();
  };
}
