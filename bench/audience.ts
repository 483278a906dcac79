/**
 * `npm run bench:audience`: one audience over 100,000 profiles on a fresh database of the local
 * Postgres, synced by the same code the worker runs (runAudienceSync).
 *
 *   first sync   — compute the ~30 % membership and enqueue one identify per member
 *                  (messages + deliveries + `deliver` jobs), goal ≤ 10 s together;
 *   re-sync      — after 1 % churn (half leave, half enter), goal ≤ 2 s.
 *
 * The ceiling, measured in the same run on the same database: the bare SQL writes a sync cannot
 * avoid — the same number of messages and deliveries inserted by one INSERT … SELECT
 * generate_series, without computing anything, with ordered message ids as the sync makes them
 * (random ones would measure random B-tree pages, which the sync does not pay:
 * docs/decisions/0021-audience-sync-cost.md). It runs on one backend, the sync on
 * SYNC_LANES; the ratio says how close the sync comes to it. Each phase also prints the CPU that
 * Postgres and this process used: on a shared machine that, not the wall clock, is comparable.
 *
 * Env: BENCH_PROFILES (100000).
 */
import { createTestDatabase } from "../test/harness/pg";
import { measureCpu, type CpuUse } from "./lib/cpu";
import { costRatio, printResult, runBench } from "./lib/result";

/** The benchmark makes its audiences by calling lib directly: the audit log records them as the operator's. */
const BENCH_ACTOR = { type: "operator", id: null, label: "bench", address: null } as const;

const PROFILES = Number(process.env.BENCH_PROFILES ?? 100_000);

const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`;
const goal = (n: number, limit: number) => (n <= limit ? `✓ within ${limit / 1000} s` : `✗ over ${limit / 1000} s`);

async function main() {
  const db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  process.env.LOG_LEVEL ??= "warn";
  // Imported after DATABASE_URL is set: they read it once.
  const { pool } = await import("../lib/platform/db");
  const { createAudience } = await import("../lib/audiences/audiences");
  const { runAudienceSync } = await import("../lib/audiences/sync");
  const { createAudienceSchema } = await import("../lib/audiences/contract");
  const { rowIdSql: uuidv7 } = await import("../lib/tracking/row-ids");
  try {
    const p = pool();
    const { rows: ws } = await p.query<{ id: string }>(
      `INSERT INTO workspaces (id, name) VALUES (gen_random_uuid(), 'bench') RETURNING id`,
    );
    const workspaceId = ws[0].id;
    const { rows: src } = await p.query<{ id: string }>(
      `INSERT INTO sources (id, workspace_id, name, write_key, updated_at) VALUES (gen_random_uuid(), $1, 'bench', md5(random()::text), now()) RETURNING id`,
      [workspaceId],
    );
    const sourceId = src[0].id;
    const { rows: dst } = await p.query<{ id: string }>(
      `INSERT INTO destinations (id, workspace_id, name, urls, updated_at) VALUES (gen_random_uuid(), $1, 'bench', ARRAY['http://127.0.0.1:9/hook'], now()) RETURNING id`,
      [workspaceId],
    );
    const destinationId = dst[0].id;

    // 20 % on the pro plan; another 10 % made two orders in the last week → ~30 % members.
    let t = performance.now();
    await p.query(
      `INSERT INTO profiles (id, workspace_id, user_id, anonymous_ids, traits, updated_at)
       SELECT gen_random_uuid(), $1, 'user-' || i, ARRAY['anon-' || i],
              jsonb_build_object('plan', CASE WHEN i % 10 < 2 THEN 'pro' ELSE 'free' END, 'email', 'user' || i || '@example.com', 'age', 18 + i % 60),
              now() - interval '1 day'
       FROM generate_series(1, $2) i`,
      [workspaceId, PROFILES],
    );
    await p.query(
      `INSERT INTO messages (id, workspace_id, source_id, message_id, type, user_id, event, timestamp, payload)
       SELECT gen_random_uuid(), $1, $2, 'm-' || i || '-' || k, 'track', 'user-' || i, 'Order Completed', now() - (k || ' days')::interval,
              jsonb_build_object('type', 'track', 'event', 'Order Completed', 'userId', 'user-' || i, 'properties', jsonb_build_object('total', 100 + k))
       FROM generate_series(1, $3) i, generate_series(1, 2) k WHERE i % 10 = 2`,
      [workspaceId, sourceId, PROFILES],
    );
    // Noise: other events from everyone, which the event condition must skip.
    await p.query(
      `INSERT INTO messages (id, workspace_id, source_id, message_id, type, user_id, event, timestamp, payload)
       SELECT gen_random_uuid(), $1, $2, 'p-' || i, 'track', 'user-' || i, 'Page Viewed', now() - interval '1 hour',
              jsonb_build_object('type', 'track', 'event', 'Page Viewed', 'userId', 'user-' || i, 'properties', '{}'::jsonb)
       FROM generate_series(1, $3) i`,
      [workspaceId, sourceId, PROFILES],
    );
    await p.query(`ANALYZE profiles; ANALYZE messages`);
    console.log(
      `seeded ${PROFILES.toLocaleString("en-US")} profiles and ${(PROFILES * 1.2).toLocaleString("en-US")} track calls in ${ms(performance.now() - t)}`,
    );

    const audience = await createAudience({
      actor: BENCH_ACTOR,
      workspaceId,
      input: createAudienceSchema.parse({
        name: "Bench Buyers",
        sourceIds: [sourceId],
        destinationIds: [destinationId],
        condition: {
          any: [
            { trait: "plan", op: "equals", value: "pro" },
            { event: "Order Completed", atLeast: 2, withinDays: 7 },
          ],
        },
      }),
    });
    let stopCpu = await measureCpu(p, null);
    const first = await runAudienceSync({ audienceId: audience.id, syncId: audience.lastSync!.id, trigger: "created" });
    const firstCpu = await stopCpu();
    const firstTotal = first.computeMs + first.enqueueMs;

    // 1 % churn: 500 pro users downgrade, 500 free users upgrade.
    const churn = Math.round(PROFILES / 200);
    await p.query(
      `UPDATE profiles SET traits = traits || jsonb_build_object('plan', CASE WHEN traits->>'plan' = 'pro' THEN 'free' ELSE 'pro' END)
       WHERE workspace_id = $1 AND user_id IN (
         (SELECT 'user-' || i FROM generate_series(10, $2::int * 10, 10) i LIMIT $3)
         UNION ALL (SELECT 'user-' || i FROM generate_series(15, $2::int * 10, 10) i LIMIT $3))`,
      [workspaceId, PROFILES / 10, churn],
    );
    stopCpu = await measureCpu(p, null);
    const resync = await runAudienceSync({ audienceId: audience.id });
    const resyncCpu = await stopCpu();
    const resyncTotal = resync.computeMs + resync.enqueueMs;

    // Ceiling: the same writes with nothing computed — messages with time-ordered ids and user ids
    // in order as the sync makes them (random ids would measure random B-tree pages, which the sync
    // avoids), deliveries with random ids as createDeliveries makes them; no jobs.
    stopCpu = await measureCpu(p, null);
    t = performance.now();
    const client = await p.connect();
    try {
      await client.query("BEGIN");
      await client.query(
        `WITH m AS (
           INSERT INTO messages (id, workspace_id, origin, message_id, type, user_id, timestamp, payload)
           SELECT ${uuidv7("uuid_send(gen_random_uuid())")}, $1, 'audience', ${uuidv7("uuid_send(gen_random_uuid())")}::text, 'identify', u,
                  now(), jsonb_build_object('type', 'identify', 'userId', u, 'traits', jsonb_build_object('x', true))
           FROM (SELECT 'user-' || i AS u FROM generate_series(1, $2) i ORDER BY 1) s RETURNING id)
         INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id) SELECT gen_random_uuid(), $1, m.id, $3 FROM m`,
        [workspaceId, first.size, destinationId],
      );
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const ceiling = performance.now() - t;
    const ceilingCpu = await stopCpu();
    const cpu = (c: CpuUse) => `cpu: postgres ${ms(c.pgMs)}, node ${ms(c.benchMs)}`;

    console.log(
      `\naudience: ${first.size.toLocaleString("en-US")} of ${PROFILES.toLocaleString("en-US")} profiles (${((first.size / PROFILES) * 100).toFixed(1)} %)`,
    );
    console.log(
      `first sync   compute ${ms(first.computeMs)} · enqueue ${ms(first.enqueueMs)} (${first.sent.toLocaleString("en-US")} identifies) · total ${ms(firstTotal)}  ${goal(firstTotal, 10_000)}  ${cpu(firstCpu)}`,
    );
    console.log(
      `re-sync 1 %  compute ${ms(resync.computeMs)} · enqueue ${ms(resync.enqueueMs)} (${resync.entered} entered, ${resync.exited} exited) · total ${ms(resyncTotal)}  ${goal(resyncTotal, 2_000)}  ${cpu(resyncCpu)}`,
    );
    console.log(
      `ceiling      bare INSERT of ${first.size.toLocaleString("en-US")} messages + deliveries: ${ms(ceiling)}  ${cpu(ceilingCpu)}`,
    );
    printResult("audience", costRatio(firstTotal, ceiling), {
      first_sync_ms: firstTotal,
      resync_ms: resyncTotal,
      ceiling_ms: ceiling,
      members: first.size,
    });
  } finally {
    await (await import("../lib/platform/runtime")).closeRuntime();
    await db.drop();
  }
}

runBench(main);
