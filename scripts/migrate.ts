// `npm run db:migrate`: applies pending prisma/migrations to DATABASE_URL.

import { migrate } from "../lib/platform/migrate";

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is not set; it must point at the Postgres database to migrate");
  const { applied } = await migrate(databaseUrl, { log: (line) => console.log(line) });
  console.log(applied.length === 0 ? "database is up to date" : `applied ${applied.length} migration(s): ${applied.join(", ")}`);
}

main().catch((error: unknown) => {
  console.error(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
