/**
 * The raw store ceiling the ingest and recording benches compare with: the same rows as JSON texts
 * in a table with only a primary key, written by one multi-row INSERT (`unnest`) per batch — the
 * least any store of those rows costs Postgres (no indexes, dedupe, jobs or updates).
 */
import crypto from "node:crypto";
import type pg from "pg";

type Queryable = Pick<pg.Pool, "query">;

export const createRawTable = (db: Queryable) =>
  db.query("CREATE TABLE IF NOT EXISTS raw_ceiling_events (id uuid PRIMARY KEY, payload json NOT NULL)");

export async function rawStore(db: Queryable, texts: string[]): Promise<void> {
  const ids = texts.map(() => crypto.randomUUID());
  await db.query({
    name: "raw-insert",
    text: "INSERT INTO raw_ceiling_events (id, payload) SELECT * FROM unnest($1::uuid[], $2::json[])",
    values: [ids, texts],
  });
}
