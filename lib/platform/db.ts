import "server-only";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { reniceBackend } from "./backend-niceness";
import { databaseUrl, env } from "./env";
import { processWide, type Closing } from "./runtime";

// int8 (bigint, count(*), sum()) arrives as a number when it is a safe integer, else as its exact
// decimal string, never rounded.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => (Number.isSafeInteger(Number(v)) ? Number(v) : v));

/** The shared pg pool: Prisma runs on it, and hot paths use it for plain SQL. Closed last of all (runtime.ts). */
export function pool(): pg.Pool {
  return processWide("pg pool", () => createPool(), POOL_CLOSING);
}

const POOL_CLOSING: Closing<pg.Pool> = { stage: "database", close: (p) => p.end() };
const PRISMA_CLOSING: Closing<PrismaClient> = { stage: "database", close: (c) => c.$disconnect() };

/**
 * The delivery path's pool (lib/delivery/process.ts). Every statement on it finds a batch's rows by
 * id, and its connections plan without sequential scans (`enable_seqscan` off), so that the plan
 * Postgres keeps for a prepared statement reads the batch by primary key even when it was made
 * while the tables were small: on a fresh install's first minutes, a plan made then seq-scanned
 * messages and deliveries on every batch, at a cost that grew with them (docs/webhooks.md#delivery-cost).
 */
export function batchPool(): pg.Pool {
  return processWide("pg batch pool", () => createPool({ options: "-c enable_seqscan=off" }), POOL_CLOSING);
}

/**
 * Connections whose commits do not wait for the WAL flush (`synchronous_commit` off), for writes that
 * nothing is lost without (docs/architecture.md#commits): pg-boss's fetch and completion of jobs in the
 * worker (lib/platform/queue-commits.ts), the workers' wake-up NOTIFY (queue.ts wakeWorkers), the
 * throttles' counters (rate-limits.ts). Each was a commit that flushed the WAL, and every synchronous
 * commit — the Tracking API's, whose 200 means durable — queued behind those flushes: 4 of every 5
 * flushes per delivered event were theirs (docs/decisions/0111-async-commits.md). A crash of Postgres
 * can lose such a commit of the last fraction of a second; a later synchronous commit flushes it
 * (the WAL is written in order), and what it leaves undone is redone: a job fetched or completed
 * again, a wake-up the workers' polling replaces, a throttle counting a few requests fewer.
 */
export function asyncCommitPool(): pg.Pool {
  return processWide(
    "pg async-commit pool",
    () => createPool({ options: "-c synchronous_commit=off", max: ASYNC_COMMIT_POOL_MAX, idleTimeoutMillis: 5_000 }),
    POOL_CLOSING,
  );
}

/** Connections of asyncCommitPool a process opens at most (README#sizing). */
const ASYNC_COMMIT_POOL_MAX = 2;

function createPool(opts: { options?: string; max?: number; idleTimeoutMillis?: number } = {}): pg.Pool {
  const p = new pg.Pool({
    connectionString: databaseUrl(),
    max: env().DB_POOL_MAX,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...opts,
  });
  // An idle client losing its connection (database restart) must not crash the process.
  p.on("error", () => {});
  // Under `npm start` the web app's own database work yields the CPU as the web app does.
  const niceness = env().EVENTRAIL_DB_SESSION_NICENESS;
  if (niceness !== undefined) p.on("connect", (client) => void reniceBackend(client, niceness));
  return p;
}

export function prisma(): PrismaClient {
  return processWide("prisma", () => new PrismaClient({ adapter: new PrismaPg(pool()) }), PRISMA_CLOSING);
}

/**
 * Runs fn in one transaction on one pooled client. `snapshot: true` makes it a read-only
 * REPEATABLE READ transaction: every statement sees the database as of the first one, for reads
 * made of several statements that must agree with each other (a list beside its totals).
 */
export async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>, opts: { snapshot?: boolean } = {}): Promise<T> {
  const client = await pool().connect();
  try {
    await client.query(opts.snapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
