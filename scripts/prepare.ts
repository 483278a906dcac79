/**
 * `npm start`'s start-up step, run once as a child of the supervisor (scripts/start.ts), which
 * imports none of the product itself: starts the embedded Postgres when DATABASE_URL is unset
 * (it runs on in its own process group after this exits; the supervisor stops it), applies the
 * migrations, and reports the database URL and, while no owner exists, the first-run setup link
 * (docs/operations.md#first-run). Usage: `node --conditions=react-server dist/prepare.mjs <public URL>`.
 */
import path from "node:path";
import { setupLinkIfPending } from "../lib/auth/setup-link";
import { startEmbeddedPostgres } from "../lib/platform/embedded-postgres";
import { migrate } from "../lib/platform/migrate";
import { root } from "./lib/build";

export type Prepared = { databaseUrl: string; setupLink: string | null };

const say = (msg: string) => console.log(`[eventrail] ${msg}`);

async function main(publicUrl: string): Promise<Prepared> {
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const dataDir = path.resolve(root, process.env.EVENTRAIL_DATA_DIR ?? ".data");
    say(`no DATABASE_URL: starting the embedded Postgres (data in ${path.relative(process.cwd(), dataDir) || "."}/pg)`);
    try {
      databaseUrl = (await startEmbeddedPostgres(dataDir)).url;
    } catch (err) {
      throw new Error(`could not start the embedded Postgres: ${(err as Error).message}`);
    }
    process.env.DATABASE_URL = databaseUrl;
  }
  const { applied } = await migrate(databaseUrl, { migrationsDir: path.join(root, "prisma", "migrations") });
  say(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
  return { databaseUrl, setupLink: await setupLinkIfPending(publicUrl) };
}

main(process.argv[2] ?? "http://localhost:3000").then(
  // Exits at once: the embedded Postgres' handle would otherwise keep this process alive.
  (prepared) => process.send?.(prepared, () => process.exit(0)) ?? process.exit(0),
  (err) => {
    console.error(`[eventrail] ${(err as Error).message}`);
    process.exit(1);
  },
);
