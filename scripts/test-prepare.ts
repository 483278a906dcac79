/**
 * Before `npm test`'s integration and end-to-end stages (scripts/test-stages): builds the web app and
 * the processes' bundles when they are missing or older than their sources (scripts/lib/build.ts),
 * so that neither stage's global setup builds them under the other, and says whether a Postgres
 * server answers for the tests' throw-away databases. Exit 0: it does, the stages can run side by
 * side; exit 3: none does, each stage would start an embedded one in the same data folder, so they
 * run one after the other.
 */
import pg from "pg";
import { adminUrl } from "../test/harness/pg";
import { buildIfNeeded } from "./lib/build";

buildIfNeeded((m) => console.log(`[test] ${m}`));
const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 3_000 });
try {
  await client.connect();
  await client.end();
} catch {
  console.log(`[test] no Postgres on ${adminUrl()}: the integration and end-to-end stages run one after the other`);
  process.exit(3);
}
