/**
 * `npm run setup-link`: prints the first-run setup link again (docs/operations.md#first-run), the
 * one `npm start` printed, while no owner exists: the same one-time code, read from the same
 * database. That is DATABASE_URL, or when it is unset the embedded Postgres `npm start` runs in
 * EVENTRAIL_DATA_DIR (found by its postmaster.pid; `npm start` must be running). The link goes to
 * stdout; when there is none (an owner exists, or no database), why goes to stderr and it exits 1.
 */
import path from "node:path";
import { setupLinkIfPending } from "../lib/auth/setup-link";
import { root } from "./lib/build";
import { postmasterPort } from "./lib/postmaster";

function databaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const dataDir = path.resolve(root, process.env.EVENTRAIL_DATA_DIR ?? ".data");
  const port = postmasterPort(dataDir);
  if (port === null) {
    throw new Error(
      `no DATABASE_URL, and no embedded Postgres running in ${path.relative(process.cwd(), dataDir) || "."}/pg: start Eventrail (npm start) first`,
    );
  }
  // The embedded Postgres' own credentials and database (lib/platform/embedded-postgres.ts).
  return `postgresql://postgres:postgres@127.0.0.1:${port}/eventrail`;
}

async function main(): Promise<number> {
  process.env.DATABASE_URL = databaseUrl();
  // The URL `npm start` prints its link with (scripts/start.ts).
  const url = `http://localhost:${Number(process.env.PORT ?? 3000)}`;
  const link = await setupLinkIfPending(url);
  if (!link) {
    console.error(`[eventrail] no setup link: this install has an owner already; sign in at ${url}/login`);
    return 1;
  }
  console.log(`[eventrail] first run: create the owner account at ${link}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[eventrail] ${(err as Error).message}`);
    process.exit(1);
  },
);
