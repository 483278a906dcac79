// A fresh install's tables start empty and grow by hundreds of rows a second. A statement of the
// delivery path finds a batch's rows by id and must read the batch, not the table, however small the
// table was when the connection first ran it: a plan Postgres kept from then (a prepared statement's
// generic plan) seq-scanned messages and deliveries on every batch, a cost that grew with the tables
// until the next autoanalyze (the abuse drill at 200 calls a second: the recording took 5 ms and half
// a core of Postgres). The delivery path's pool plans without sequential scans (lib/platform/db.ts
// batchPool; docs/webhooks.md#delivery-cost).
import crypto from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertWorkspaceAndDestination } from "./harness/pg";
import { useTestDatabase } from "./harness/audience-fixtures";
import { batchPool } from "../lib/platform/db";
import { recordRound } from "../lib/delivery/record";
import { loadDueDeliveries } from "../lib/delivery/load";
import { claimRounds } from "../lib/delivery/claims";
import { answeredOk, roundUpdate } from "./harness/delivery/plans";

let db: Awaited<ReturnType<typeof useTestDatabase>>;
beforeAll(async () => {
  db = await useTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

type Seeded = { ws: string; dest: string; msg: string; delivery: string };

async function seedOne(c: pg.PoolClient, ws: string, dest: string): Promise<Seeded> {
  const msg = crypto.randomUUID();
  const delivery = crypto.randomUUID();
  await c.query(
    "INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload) VALUES ($1, $2, $3, 'track', 'u1', now(), '{}')",
    [msg, ws, `m-${msg}`],
  );
  await c.query("INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id) VALUES ($1, $2, $3, $4)", [
    delivery,
    ws,
    msg,
    dest,
  ]);
  return { ws, dest, msg, delivery };
}

/** What one batch of one delivery does on the delivery path, each statement as the worker runs it. */
async function batchOf(c: pg.PoolClient, s: Seeded): Promise<void> {
  const { deliveries } = await loadDueDeliveries(c, [s.delivery]);
  expect(deliveries.map((d) => d.id)).toEqual([s.delivery]);
  await claimRounds(c, [{ id: s.delivery, rounds: 0, contested: true }]);
  const attempt = answeredOk({ workspace_id: s.ws, delivery_id: s.delivery, destination_id: s.dest, message_row_id: s.msg });
  await recordRound(c, [attempt], [{ ...roundUpdate(s.delivery), state: "delivered", delivered_at: new Date().toISOString() }]);
}

describe("the delivery path's statements on tables that grew since the connection first ran them", () => {
  it("read the batch's rows by primary key, not the whole of messages and deliveries", async () => {
    const c = await batchPool().connect();
    try {
      const { ws, dest } = await insertWorkspaceAndDestination(c);
      // The tables hold a handful of rows: every statement runs more than the five times after
      // which Postgres may keep a plan for the connection.
      for (let i = 0; i < 8; i++) await batchOf(c, await seedOne(c, ws, dest));

      await c.query(
        `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload)
         SELECT md5('g' || g)::uuid, $1, 'g-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, 20000) g`,
        [ws],
      );
      await c.query(
        `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
         SELECT gen_random_uuid(), $1, md5('g' || g)::uuid, $2 FROM generate_series(1, 20000) g`,
        [ws, dest],
      );
      const s = await seedOne(c, ws, dest);

      // What this transaction's statements read, per table (pg_stat_xact_user_tables: counted so far
      // in the current transaction, so no other session's work is in it).
      await c.query("BEGIN");
      await batchOf(c, s);
      const { rows } = await c.query<{ relname: string; seq_tup_read: string; idx_tup_fetch: string }>(
        "SELECT relname, seq_tup_read, coalesce(idx_tup_fetch, 0) AS idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname IN ('messages', 'deliveries') ORDER BY relname",
      );
      await c.query("ROLLBACK");
      for (const r of rows) expect(Number(r.seq_tup_read), `${r.relname}: rows read by sequential scans`).toBeLessThan(100);
      expect(rows.map((r) => r.relname)).toEqual(["deliveries", "messages"]);
    } finally {
      c.release();
    }
  });
});
