/**
 * The web app's database sessions yield the CPU as the web app does (issue 14's isolation,
 * docs/architecture.md#processes): with EVENTRAIL_DB_SESSION_NICENESS set, every Postgres backend
 * the process opens on this machine runs at that niceness; nothing else is reniced.
 */
import os from "node:os";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reniceBackend } from "@/lib/platform/backend-niceness";
import { createTestDatabase } from "./harness/pg";
import { ADMIN_TOKEN, startApp } from "./harness/stack";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await database?.drop();
});

describe("renicing a connection's backend", () => {
  it("gives a local Postgres backend the niceness, and leaves this connection's own untouched", async () => {
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      const pid = (other as unknown as { processID: number }).processID;
      expect(os.getPriority(pid)).toBe(0);
      expect(reniceBackend(other, 7)).toBe(true);
      expect(os.getPriority(pid)).toBe(7);
      expect(os.getPriority((db as unknown as { processID: number }).processID)).toBe(0);
    } finally {
      await other.end();
    }
  });

  it("renices nothing that is not a Postgres process of this machine", () => {
    // A pid reported by a server elsewhere may name an unrelated local process: here, this one.
    const fromElsewhere = { processID: process.pid, host: "db.example.com" } as unknown as pg.ClientBase;
    const notPostgres = { processID: process.pid, host: "127.0.0.1" } as unknown as pg.ClientBase;
    expect(reniceBackend(fromElsewhere, 7)).toBe(false);
    expect(reniceBackend(notPostgres, 7)).toBe(false);
    expect(os.getPriority(process.pid)).toBe(0);
  });
});

describe("the web app with EVENTRAIL_DB_SESSION_NICENESS", () => {
  it("runs every backend it opens at that niceness", async () => {
    const app = await startApp(database.url, { EVENTRAIL_DB_SESSION_NICENESS: "9", PGAPPNAME: "niced-web" });
    try {
      const res = await fetch(`${app.url}/api/workspaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "niced" }),
      });
      expect(res.status).toBe(201);
      const { rows } = await db.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'niced-web'",
        [database.name],
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((r) => os.getPriority(r.pid))).toEqual(rows.map(() => 9));
    } finally {
      await app.stop();
    }
  });
});
