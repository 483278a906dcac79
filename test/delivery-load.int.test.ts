// The worker's load statement (lib/delivery/load.ts) reads a batch's deliveries by primary key, so
// its cost follows the batch, not the backlog: with thousands of deliveries pending and no fresh
// statistics (a burst right after ingest), the planner once chose to bitmap-scan every pending
// delivery through deliveries(state, next_attempt_at) and filter them by id (docs/webhooks.md#delivery-cost).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, insertWorkspaceAndDestination } from "./harness/pg";
import { LOAD_DUE_SQL } from "../lib/delivery/load";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe("loading a batch of deliveries", () => {
  it("reads only the batch's rows however many deliveries are pending", async () => {
    // No statistics but those of the empty table, as right after a burst: autovacuum kept out.
    await pool.query("ALTER TABLE deliveries SET (autovacuum_enabled = false)");
    const { ws, dest } = await insertWorkspaceAndDestination(pool);
    await pool.query(
      `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload)
       SELECT md5('m' || g)::uuid, $1, 'm-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, 5000) g`,
      [ws],
    );
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
       SELECT gen_random_uuid(), $1, md5('m' || g)::uuid, $2 FROM generate_series(1, 5000) g RETURNING id`,
      [ws, dest],
    );
    const batch = rows.slice(0, 50).map((r) => r.id);

    const plan = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${LOAD_DUE_SQL}`, [batch]);
    const nodes: { "Relation Name"?: string; "Index Name"?: string; "Actual Rows": number; "Actual Loops": number }[] = [];
    const walk = (n: any) => {
      nodes.push(n);
      for (const c of n.Plans ?? []) walk(c);
    };
    walk(plan.rows[0]["QUERY PLAN"][0].Plan);
    expect(nodes.some((n) => n["Index Name"] === "deliveries_state_next_attempt_at_idx")).toBe(false);
    const deliveryRowsRead = nodes
      .filter((n) => n["Relation Name"] === "deliveries")
      .reduce((sum, n) => sum + n["Actual Rows"] * n["Actual Loops"], 0);
    expect(deliveryRowsRead).toBeLessThanOrEqual(batch.length);

    const loaded = await pool.query(LOAD_DUE_SQL, [batch]);
    expect(loaded.rows.map((r) => r.id).sort()).toEqual([...batch].sort());
  });
});
