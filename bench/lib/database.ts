/**
 * A bench's own database on the local Postgres, made lib's database (DATABASE_URL, which lib reads
 * when its modules are first imported: import them after this), with a pool for the bench's own
 * queries. `close` ends that pool, then lib's runtime (its pools and pg-boss), then drops the database.
 */
import pg from "pg";
import { createTestDatabase } from "../../test/harness/pg";

export async function benchDatabase(poolMax = 2): Promise<{ url: string; db: pg.Pool; close(): Promise<void> }> {
  const database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  const db = new pg.Pool({ connectionString: database.url, max: poolMax });
  db.on("error", () => {});
  return {
    url: database.url,
    db,
    async close() {
      await db.end();
      const { closeRuntime } = await import("../../lib/platform/runtime");
      await closeRuntime();
      await database.drop();
    },
  };
}
