// The worker's load statement (lib/delivery/load.ts) reads a batch's deliveries by primary key, so
// its cost follows the batch, not the backlog: with thousands of deliveries pending and no fresh
// statistics (a burst right after ingest), the planner once chose to bitmap-scan every pending
// delivery through deliveries(state, next_attempt_at) and filter them by id (docs/webhooks.md#delivery-cost);
// that index is now the partial deliveries_pending_idx, which could serve the same plan.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, insertWorkspaceAndDestination } from "./harness/pg";
import { LOAD_DUE_SQL, loadDueDeliveries } from "../lib/delivery/load";
import { planNodes, rowsRead } from "./harness/delivery/plans";

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
       SELECT md5('m' || g)::uuid, $1, 'm-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, 20000) g`,
      [ws],
    );
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
       SELECT gen_random_uuid(), $1, md5('m' || g)::uuid, $2 FROM generate_series(1, 20000) g RETURNING id`,
      [ws, dest],
    );
    // As many as a worker's fetch of five jobs carries.
    const batch = rows.slice(0, 500).map((r) => r.id);

    // The worker prepares the statement (a named statement), so after five runs Postgres may keep
    // one generic plan for every batch: it must read the batch by primary key too.
    const client = await pool.connect();
    try {
      await client.query(`PREPARE load_due(uuid[]) AS ${LOAD_DUE_SQL}`);
      for (const mode of ["force_custom_plan", "force_generic_plan"]) {
        await client.query(`SET plan_cache_mode = ${mode}`);
        const plan = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE load_due('{${batch.join(",")}}')`);
        expect(planNodes(plan).some((n) => n["Index Name"] === "deliveries_pending_idx")).toBe(false);
        expect(rowsRead(plan, "deliveries"), `${mode}: deliveries`).toBeLessThanOrEqual(batch.length);
        expect(rowsRead(plan, "messages"), `${mode}: messages`).toBeLessThanOrEqual(batch.length);
      }
    } finally {
      await client.query("DEALLOCATE ALL; RESET plan_cache_mode");
      client.release();
    }

    const loaded = await pool.query(LOAD_DUE_SQL, [batch]);
    expect(loaded.rows.map((r) => r.id).sort()).toEqual([...batch].sort());
  });

  it("reads each destination's settings once per batch, shared by its deliveries", async () => {
    const { ws, dest } = await insertWorkspaceAndDestination(pool);
    await pool.query(
      `UPDATE destinations SET urls = '{http://127.0.0.1:9/a,http://127.0.0.1:9/b}', disabled_urls = '{http://127.0.0.1:9/a}',
              headers = '[{"name":"X-Team","value":"growth"}]', shared_secret = 'k', mode = 'every' WHERE id = $1`,
      [dest],
    );
    const other = (
      await pool.query<{ id: string }>(
        "INSERT INTO destinations (id, workspace_id, name, urls, updated_at) VALUES (gen_random_uuid(), $1, 'e', '{http://127.0.0.1:9/c}', now()) RETURNING id",
        [ws],
      )
    ).rows[0].id;
    await pool.query(
      `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload)
       SELECT md5('s' || g)::uuid, $1, 's-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, 6) g`,
      [ws],
    );
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
       SELECT gen_random_uuid(), $1, md5('s' || g)::uuid, CASE WHEN g % 2 = 0 THEN $2::uuid ELSE $3::uuid END
       FROM generate_series(1, 6) g RETURNING id`,
      [ws, dest, other],
    );

    const { deliveries, orphansDropped } = await loadDueDeliveries(
      pool,
      rows.map((r) => r.id),
    );
    expect(deliveries).toHaveLength(6);
    expect(orphansDropped).toBe(0);
    const toDest = deliveries.filter((d) => d.destinationId === dest);
    const toOther = deliveries.filter((d) => d.destinationId === other);
    expect(toDest).toHaveLength(3);
    // One object per destination: its settings are read and prepared once (docs/webhooks.md#delivery-cost).
    for (const d of toDest) expect(d.destination).toBe(toDest[0].destination);
    for (const d of toOther) expect(d.destination).toBe(toOther[0].destination);
    expect(toDest[0].destination).not.toBe(toOther[0].destination);
    expect(toDest[0].destination).toMatchObject({
      id: dest,
      urls: ["http://127.0.0.1:9/b"],
      disabledUrls: ["http://127.0.0.1:9/a"],
      headers: [{ name: "X-Team", value: "growth" }],
      sharedSecret: "k",
      mode: "every",
      enabled: true,
    });
    expect(toOther[0].destination).toMatchObject({ id: other, urls: ["http://127.0.0.1:9/c"], sharedSecret: null, mode: "any" });
  });

  it("drops the batch's deliveries whose destination is gone, and loads the rest", async () => {
    const { ws, dest } = await insertWorkspaceAndDestination(pool);
    await pool.query(
      `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload)
       SELECT md5('o' || g)::uuid, $1, 'o-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, 2) g`,
      [ws],
    );
    const gone = "00000000-0000-4000-8000-000000000001";
    const { rows } = await pool.query<{ id: string; destination_id: string }>(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
       SELECT gen_random_uuid(), $1, md5('o' || g)::uuid, CASE WHEN g = 1 THEN $2::uuid ELSE $3::uuid END
       FROM generate_series(1, 2) g RETURNING id, destination_id`,
      [ws, dest, gone],
    );
    const { deliveries, orphansDropped } = await loadDueDeliveries(
      pool,
      rows.map((r) => r.id),
    );
    expect(deliveries.map((d) => d.destinationId)).toEqual([dest]);
    expect(orphansDropped).toBe(1);
    const left = await pool.query("SELECT destination_id FROM deliveries WHERE id = ANY($1::uuid[])", [rows.map((r) => r.id)]);
    expect(left.rows).toEqual([{ destination_id: dest }]);
  });
});
