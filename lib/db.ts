import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { databaseUrl, env } from "./env";

// Timestamps leave Postgres as ISO strings with milliseconds in UTC, never as local-time Dates.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => (Number.isSafeInteger(Number(v)) ? Number(v) : v));

type Globals = { pool?: pg.Pool; prisma?: PrismaClient };
// One pool and one Prisma client per process (survives Next's dev reloads).
const globals = globalThis as unknown as { __eventrail?: Globals };
const g: Globals = (globals.__eventrail ??= {});

/** The shared pg pool: Prisma runs on it, and hot paths use it for plain SQL. */
export function pool(): pg.Pool {
  if (!g.pool) {
    g.pool = new pg.Pool({
      connectionString: databaseUrl(),
      max: env().DB_POOL_MAX,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection (database restart) must not crash the process.
    g.pool.on("error", () => {});
  }
  return g.pool;
}

export function prisma(): PrismaClient {
  if (!g.prisma) g.prisma = new PrismaClient({ adapter: new PrismaPg(pool()) });
  return g.prisma;
}

/** Runs fn in one transaction on one pooled client. */
export async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool().connect();
  try {
    await client.query("BEGIN");
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

export async function closeDb(): Promise<void> {
  const { prisma: client, pool: p } = g;
  g.prisma = undefined;
  g.pool = undefined;
  await client?.$disconnect().catch(() => {});
  await p?.end().catch(() => {});
}
