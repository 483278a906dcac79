import { startApp, startWorker } from "../test/stack";
import { createTestDatabase } from "../test/pg";
import { buildIfNeeded } from "../scripts/lib/build";

/** A fresh install: new database, the production app and one worker. */
export default async function globalSetup() {
  buildIfNeeded((m) => console.log(`[e2e] ${m}`));
  const db = await createTestDatabase();
  const app = await startApp(db.url);
  const worker = await startWorker(db.url);
  process.env.E2E_BASE_URL = app.url;
  process.env.E2E_DATABASE_URL = db.url;
  return async () => {
    await worker.stop();
    await app.stop();
    await db.drop();
  };
}
