/**
 * The batch statements, planned per execution with hundreds of ids (lib/delivery/batches.ts,
 * record.ts RECORD_WITH_MEMBERS), read a batch's deliveries through the primary key and nothing
 * more, on a table large enough that a sequential scan looks cheaper to the planner than hundreds
 * of index probes (docs/decisions/0102-batch-membership.md): a scan of every delivery for each
 * batch recorded is what these statements cost before.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, insertWorkspaceAndDestination } from "./harness/pg";
import { RECORD_WITH_MEMBERS, type AttemptRow, type DeliveryUpdate } from "../lib/delivery/record";
import { JOIN, MEMBERS_TO_SEND_SQL } from "../lib/delivery/batches";
import { answeredOk, roundUpdate, rowsRead } from "./harness/delivery/plans";

const TABLE = 40_000;
const BATCHES = 5;
const PER_BATCH = 100;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let ws: string;
let dest: string;
let rows: { id: string; message_row_id: string }[];
beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url });
  ({ ws, dest } = await insertWorkspaceAndDestination(pool));
  await pool.query(
    `INSERT INTO messages (id, workspace_id, message_id, type, user_id, timestamp, payload)
     SELECT md5('b' || g)::uuid, $1, 'b-' || g, 'track', 'u1', now(), '{}' FROM generate_series(1, ${TABLE}) g`,
    [ws],
  );
  ({ rows } = await pool.query<{ id: string; message_row_id: string }>(
    `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
     SELECT gen_random_uuid(), $1, md5('b' || g)::uuid, $2 FROM generate_series(1, ${TABLE}) g RETURNING id, message_row_id`,
    [ws, dest],
  ));
  await pool.query("ANALYZE deliveries, messages");
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** Rows of deliveries the statement's plan read (its updates aside), run with these parameters and rolled back. */
async function deliveryRowsRead(sql: string, values: unknown[], setup?: (c: pg.PoolClient) => Promise<void>): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await setup?.(client);
    const literals = values.map((v) => (v === null ? "NULL" : client.escapeLiteral(String(v))));
    // Unnamed statements are planned with their values, as EXECUTE of a custom plan is.
    await client.query(`PREPARE stmt AS ${sql}`);
    await client.query("SET LOCAL plan_cache_mode = force_custom_plan");
    return rowsRead(await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE stmt(${literals.join(", ")})`), "deliveries");
  } finally {
    await client.query("ROLLBACK");
    // A prepared statement outlives the transaction.
    await client.query("DEALLOCATE ALL");
    client.release();
  }
}

const batchOf = (b: number) => rows.slice(b * PER_BATCH, (b + 1) * PER_BATCH);
const batchId = (b: number) => `00000000-0000-7000-8000-${String(b).padStart(12, "0")}`;

describe(`the batch statements read only the batch's deliveries among ${TABLE.toLocaleString("en")}`, () => {
  it("joining: 5 batches of 100 made and their members inserted", async () => {
    const batches = Array.from({ length: BATCHES }, (_, b) => b);
    const members = batches.flatMap((b) => batchOf(b).map((d) => ({ id: d.id, batch: batchId(b), part: `{"n":"${d.id}"}` })));
    const fresh = batches.map((b) => ({
      id: batchId(b),
      workspaceId: ws,
      destinationId: dest,
      closed: true,
      lead: batchOf(b)[0].id,
      urls: null,
      events: PER_BATCH,
      bytes: 1000,
      closeAt: new Date(),
      body: "[]",
      leadRounds: 0,
    }));
    const read = await deliveryRowsRead(
      JOIN.text,
      JOIN.values({ fresh, grown: [], members: members.map((m) => ({ id: m.id, batchId: m.batch, part: m.part })) }),
    );
    expect(read).toBeLessThanOrEqual(BATCHES * PER_BATCH);
  });

  it("recording: 5 leads' updates and their 495 other members taking them", async () => {
    const now = new Date().toISOString();
    const leads = Array.from({ length: BATCHES }, (_, b) => batchOf(b)[0]);
    const attempts: AttemptRow[] = leads.map((d, b) =>
      answeredOk({
        workspace_id: ws,
        delivery_id: d.id,
        destination_id: dest,
        message_row_id: d.message_row_id,
        user_id: null,
        started_at: now,
        request_body: "[{}]",
        batch_id: batchId(b),
      }),
    );
    const updates: DeliveryUpdate[] = leads.map((d) =>
      roundUpdate(d.id, { first_attempt_at: now, last_attempt_at: now, delivered_at: now }),
    );
    const members = Array.from({ length: BATCHES }, (_, b) =>
      batchOf(b)
        .slice(1)
        .map((d) => ({ id: d.id, lead: b + 1 })),
    ).flat();
    const read = await deliveryRowsRead(RECORD_WITH_MEMBERS.text, RECORD_WITH_MEMBERS.values({ attempts, updates, members }));
    expect(read).toBeLessThanOrEqual(BATCHES * PER_BATCH);
  });

  it("sending: the pending members of 5 batches, with their parts", async () => {
    const batches = Array.from({ length: BATCHES }, (_, b) => batchId(b));
    const read = await deliveryRowsRead(MEMBERS_TO_SEND_SQL, [`{${batches.join(",")}}`, `{${batches.join(",")}}`], async (c) => {
      await c.query(
        `INSERT INTO delivery_batch_members (delivery_id, batch_id, part)
         SELECT x.id, x.batch, '{}' FROM unnest($1::uuid[], $2::uuid[]) AS x(id, batch)`,
        [batches.flatMap((_, b) => batchOf(b).map((d) => d.id)), batches.flatMap((id, b) => batchOf(b).map(() => id))],
      );
      await c.query("ANALYZE delivery_batch_members");
    });
    expect(read).toBeLessThanOrEqual(BATCHES * PER_BATCH);
  });
});
