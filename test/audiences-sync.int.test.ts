// Syncs run in-process against a real database and a real pg-boss: what they write to the normal
// delivery path (identify messages, deliveries, deliver jobs), the diff between syncs, the lock
// that keeps one audience's syncs apart, and the schedule's tick. test/audiences.int.test.ts
// drives the same through the Tracking API, the worker and a real receiver.

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "../lib/platform/db";
import { identify, insertDestination, insertWorkspace, storeCalls, track, useTestDatabase } from "./harness/audience-fixtures";
import { createAudience, updateAudience } from "../lib/audiences/audiences";
import { runAudienceSync, tryLockAudienceSync, unlockAudienceSync } from "../lib/audiences/sync";
import { listAudienceSyncs, queueDueAudienceSyncs } from "../lib/audiences/syncs";
import { createAudienceSchema } from "../lib/audiences/contract";

/** These changes are made by the test itself, calling lib directly: the audit log records them as the operator's. */
const TEST_ACTOR = { type: "operator", id: null, label: "test", address: null } as const;

let db: Awaited<ReturnType<typeof useTestDatabase>>;
beforeAll(async () => {
  db = await useTestDatabase();
});
afterAll(() => db?.close());

type Sent = { userId: string; value: boolean; destinationId: string; payload: Record<string, unknown> };

/** The identifies a sync put on the delivery path: one delivery per message and destination. */
async function sentBy(syncId: string, property: string): Promise<Sent[]> {
  const { rows } = await pool().query(
    `SELECT m.user_id, m.payload, d.destination_id FROM messages m JOIN deliveries d ON d.message_row_id = m.id
     WHERE m.origin = 'audience' AND m.origin_ref = $1 ORDER BY m.user_id, d.destination_id`,
    [syncId],
  );
  return rows.map((r) => ({ userId: r.user_id, value: r.payload.traits[property], destinationId: r.destination_id, payload: r.payload }));
}

const pairs = (s: Sent[]) => s.map((x) => `${x.userId}=${x.value}`).sort();

/** A workspace with 5 users on plans, an audience "Pro Buyers" (pro plan, or 2+ orders), a destination. */
async function setup() {
  const { workspaceId, sourceId } = await insertWorkspace();
  const destinationId = await insertDestination(workspaceId);
  await storeCalls(workspaceId, sourceId, [
    identify("u1", { plan: "pro" }),
    identify("u2", { plan: "pro" }),
    identify("u3", { plan: "free" }),
    identify("u4", { plan: "free" }),
    identify("u5", { plan: "free" }),
    track("u3", "Order Completed"),
    track("u3", "Order Completed"),
  ]);
  const audience = await createAudience({
    workspaceId,
    actor: TEST_ACTOR,
    input: createAudienceSchema.parse({
      name: "Pro Buyers",
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
  const [queued] = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
  return { workspaceId, sourceId, destinationId, audience, queued };
}

/** Runs `during` while the database refuses the (n+1)th row written to `table`, as a crash would stop a sync there. */
async function failAfter(table: "messages" | "audience_members", n: number, during: () => Promise<unknown>) {
  await pool().query(`CREATE TABLE fail_budget (n int); INSERT INTO fail_budget VALUES (${n})`);
  await pool().query(`CREATE FUNCTION fail_when_spent() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE fail_budget SET n = n - 1; IF (SELECT n FROM fail_budget) < 0 THEN RAISE EXCEPTION 'simulated crash'; END IF; RETURN NULL; END $$`);
  await pool().query(`CREATE TRIGGER fail_when_spent AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_when_spent()`);
  try {
    await during();
  } finally {
    await pool().query(`DROP TRIGGER fail_when_spent ON ${table}; DROP FUNCTION fail_when_spent(); DROP TABLE fail_budget`);
  }
}

describe("audience syncs", () => {
  it("first sync: one identify per member with true, through deliveries and deliver jobs", async () => {
    const { workspaceId, destinationId, audience, queued } = await setup();
    expect(audience.propertyName).toBe("pro_buyers");
    expect(queued).toMatchObject({ status: "queued", trigger: "created" });
    const jobs = await pool().query(`SELECT data FROM pgboss.job WHERE name = 'audience-sync' AND data->>'syncId' = $1`, [queued.id]);
    expect(jobs.rows).toHaveLength(1);

    const runFrom = Date.now();
    const r = await runAudienceSync({ audienceId: audience.id, syncId: queued.id, trigger: "created" });
    const runTo = Date.now();
    expect(r).toMatchObject({ status: "completed", size: 3, entered: 3, exited: 0, sent: 3 });
    const sent = await sentBy(queued.id, "pro_buyers");
    expect(pairs(sent)).toEqual(["u1=true", "u2=true", "u3=true"]);
    expect(new Set(sent.map((s) => s.destinationId))).toEqual(new Set([destinationId]));
    expect(sent[0].payload).toMatchObject({
      type: "identify",
      userId: "u1",
      traits: { pro_buyers: true },
      context: { audience: { id: audience.id, name: "Pro Buyers", key: "pro_buyers" } },
    });
    expect(sent[0].payload.messageId).toEqual(expect.any(String));
    expect(sent[0].payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // Each delivery is in a pending `deliver` job, as ingest's are.
    const deliveryIds = (
      await pool().query(`SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_row_id WHERE m.origin_ref = $1`, [queued.id])
    ).rows.map((x) => x.id);
    const jobIds = (
      await pool().query(`SELECT jsonb_array_elements_text(data->'deliveryIds') AS id FROM pgboss.job WHERE name = 'deliver'`)
    ).rows.map((x) => x.id);
    expect(jobIds).toEqual(expect.arrayContaining(deliveryIds));

    const [sync] = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
    expect(sync).toMatchObject({ id: queued.id, status: "completed", initial: true, entered: 3, exited: 0, sent: 3, total: 3, size: 3 });
    // Its duration runs from when it was asked for to when it finished, during this run (the
    // database keeps milliseconds, rounded: 1 ms of slack on the end).
    expect(sync.startedAt).toBe(queued.startedAt);
    const finished = Date.parse(sync.finishedAt!);
    expect(finished).toBeGreaterThanOrEqual(runFrom);
    expect(finished).toBeLessThanOrEqual(runTo + 1);
    expect(sync.durationMs).toBe(finished - Date.parse(sync.startedAt));
  });

  it("later syncs send exactly who entered (true) and who left (false); no change sends nothing", async () => {
    const { workspaceId, sourceId, audience, queued } = await setup();
    await runAudienceSync({ audienceId: audience.id, syncId: queued.id });

    // u1 downgrades (leaves), u4 upgrades (enters), u5 orders twice (enters), u2 changes an unrelated trait (stays).
    await storeCalls(workspaceId, sourceId, [
      identify("u1", { plan: "free" }),
      identify("u4", { plan: "pro" }),
      identify("u2", { country: "DE" }),
      track("u5", "Order Completed"),
      track("u5", "Order Completed"),
    ]);
    const second = await runAudienceSync({ audienceId: audience.id });
    expect(second).toMatchObject({ status: "completed", size: 4, entered: 2, exited: 1, sent: 3 });
    expect(pairs(await sentBy(second.syncId!, "pro_buyers"))).toEqual(["u1=false", "u4=true", "u5=true"]);

    const third = await runAudienceSync({ audienceId: audience.id });
    expect(third).toMatchObject({ status: "completed", size: 4, entered: 0, exited: 0, sent: 0 });
    expect(await sentBy(third.syncId!, "pro_buyers")).toEqual([]);
    const members = await pool().query(`SELECT user_id FROM audience_members WHERE audience_id = $1 ORDER BY user_id`, [audience.id]);
    expect(members.rows.map((m) => m.user_id)).toEqual(["u2", "u3", "u4", "u5"]);
  });

  it("chunks commit their identifies with the membership they report: many chunks add up, and a sync that dies half-way resumes", async () => {
    const { workspaceId, sourceId, audience, queued } = await setup();
    const first = await runAudienceSync({ audienceId: audience.id, syncId: queued.id, chunkSize: 2 });
    expect(first).toMatchObject({ size: 3, sent: 3 });
    expect(pairs(await sentBy(queued.id, "pro_buyers"))).toEqual(["u1=true", "u2=true", "u3=true"]);

    await storeCalls(workspaceId, sourceId, [
      identify("u1", { plan: "free" }),
      identify("u2", { plan: "free" }),
      identify("u4", { plan: "pro" }),
      identify("u5", { plan: "pro" }),
    ]);
    // The database refuses the third membership change of this sync, as a crash would stop it.
    await pool().query(`CREATE TABLE fail_budget (n int); INSERT INTO fail_budget VALUES (2)`);
    await pool().query(`CREATE FUNCTION fail_when_spent() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE fail_budget SET n = n - 1; IF (SELECT n FROM fail_budget) < 0 THEN RAISE EXCEPTION 'simulated crash'; END IF; RETURN NULL; END $$`);
    await pool().query(
      `CREATE TRIGGER fail_when_spent AFTER INSERT OR DELETE ON audience_members FOR EACH ROW EXECUTE FUNCTION fail_when_spent()`,
    );
    const { withTransaction } = await import("../lib/platform/db");
    const { requestAudienceSync } = await import("../lib/audiences/syncs");
    const { sync } = await withTransaction((c) => requestAudienceSync(c, { audienceId: audience.id, workspaceId, trigger: "manual" }));
    try {
      await expect(runAudienceSync({ audienceId: audience.id, syncId: sync.id, chunkSize: 1, lanes: 1 })).rejects.toThrow(
        "simulated crash",
      );
      const [failed] = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
      expect(failed).toMatchObject({ id: sync.id, status: "failed", error: expect.stringContaining("simulated crash"), sent: 2, total: 4 });
      expect(await sentBy(sync.id, "pro_buyers")).toHaveLength(2);
    } finally {
      await pool().query(`DROP TRIGGER fail_when_spent ON audience_members; DROP FUNCTION fail_when_spent(); DROP TABLE fail_budget`);
    }
    // The job's retry: the same sync resumes and sends only what the crash left unsent.
    const resumed = await runAudienceSync({ audienceId: audience.id, syncId: sync.id, chunkSize: 1, lanes: 1 });
    // Users go in id order: the crash came at u4, so u4 and u5, who entered, were left.
    expect(resumed).toMatchObject({ status: "completed", entered: 2, exited: 0, sent: 2 });
    expect(pairs(await sentBy(sync.id, "pro_buyers"))).toEqual(["u1=false", "u2=false", "u4=true", "u5=true"]);
    const [done] = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
    expect(done).toMatchObject({ status: "completed", entered: 2, exited: 2, sent: 4, total: 4, size: 3 });
  });

  it("a first sync that dies half-way resumes after the last user it committed: one identify per member and destination", async () => {
    const { workspaceId, destinationId, audience, queued } = await setup();
    const second = await insertDestination(workspaceId);
    await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { destinationIds: [destinationId, second] } });
    // The database refuses the third identify, as a crash would stop the sync there.
    await failAfter("messages", 2, async () => {
      await expect(runAudienceSync({ audienceId: audience.id, syncId: queued.id, chunkSize: 1, lanes: 1 })).rejects.toThrow(
        "simulated crash",
      );
      expect(pairs(await sentBy(queued.id, "pro_buyers"))).toEqual(["u1=true", "u1=true", "u2=true", "u2=true"]);
    });
    // A destination connected while the sync waits for its retry is not part of it: it gets
    // everyone at the next sync, not the rest of this one.
    const late = await insertDestination(workspaceId);
    await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { destinationIds: [destinationId, second, late] } });
    const resumed = await runAudienceSync({ audienceId: audience.id, syncId: queued.id, chunkSize: 1, lanes: 1 });
    expect(resumed).toMatchObject({ status: "completed", size: 3, entered: 1, sent: 2 });
    const sent = await sentBy(queued.id, "pro_buyers");
    for (const d of [destinationId, second])
      expect(pairs(sent.filter((s) => s.destinationId === d))).toEqual(["u1=true", "u2=true", "u3=true"]);
    expect(sent.filter((s) => s.destinationId === late)).toEqual([]);
    const [done] = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
    expect(done).toMatchObject({ id: queued.id, status: "completed", entered: 3, exited: 0, sent: 6, total: 6, size: 3 });

    const next = await runAudienceSync({ audienceId: audience.id });
    expect(pairs(await sentBy(next.syncId!, "pro_buyers"))).toEqual(["u1=true", "u2=true", "u3=true"]);
    expect((await sentBy(next.syncId!, "pro_buyers")).every((s) => s.destinationId === late)).toBe(true);
  });

  it("a sync that dies while a new destination gets everyone resumes without sending anyone twice", async () => {
    const { workspaceId, sourceId, destinationId, audience, queued } = await setup();
    await runAudienceSync({ audienceId: audience.id, syncId: queued.id });
    const added = await insertDestination(workspaceId);
    await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { destinationIds: [destinationId, added] } });
    await storeCalls(workspaceId, sourceId, [identify("u1", { plan: "free" }), identify("u4", { plan: "pro" })]);
    const { withTransaction } = await import("../lib/platform/db");
    const { requestAudienceSync } = await import("../lib/audiences/syncs");
    const { sync } = await withTransaction((c) => requestAudienceSync(c, { audienceId: audience.id, workspaceId, trigger: "manual" }));
    // u1 (left: false to the first destination only), u2 and u3 (stayed: true to the new one), then the crash at u4.
    await failAfter("messages", 3, () =>
      expect(runAudienceSync({ audienceId: audience.id, syncId: sync.id, chunkSize: 1, lanes: 1 })).rejects.toThrow("simulated crash"),
    );
    await runAudienceSync({ audienceId: audience.id, syncId: sync.id, chunkSize: 1, lanes: 1 });
    const sent = await sentBy(sync.id, "pro_buyers");
    expect(pairs(sent.filter((s) => s.destinationId === destinationId))).toEqual(["u1=false", "u4=true"]);
    expect(pairs(sent.filter((s) => s.destinationId === added))).toEqual(["u2=true", "u3=true", "u4=true"]);
  });

  it("a sync in two lanes that dies half-way resumes each lane after what it committed", async () => {
    const { workspaceId, destinationId, audience, queued } = await setup();
    const added = await insertDestination(workspaceId);
    await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { destinationIds: [destinationId, added] } });
    // Both lanes run until the database refuses their next identify: two are committed, in either lane.
    await failAfter("messages", 2, () =>
      expect(runAudienceSync({ audienceId: audience.id, syncId: queued.id, chunkSize: 1, lanes: 2 })).rejects.toThrow("simulated crash"),
    );
    expect(await sentBy(queued.id, "pro_buyers")).toHaveLength(4);
    const { rows } = await pool().query(`SELECT done_through FROM audience_syncs WHERE id = $1`, [queued.id]);
    expect(rows[0].done_through).toHaveLength(2);
    // The retry keeps the two lanes, whatever it is asked for.
    const resumed = await runAudienceSync({ audienceId: audience.id, syncId: queued.id, chunkSize: 1, lanes: 1 });
    expect(resumed).toMatchObject({ status: "completed", size: 3, entered: 1, sent: 2 });
    const sent = await sentBy(queued.id, "pro_buyers");
    for (const d of [destinationId, added])
      expect(pairs(sent.filter((s) => s.destinationId === d))).toEqual(["u1=true", "u2=true", "u3=true"]);
  });

  it("a newly connected destination gets every member while the first gets only changes; disabled ones get nothing", async () => {
    const { workspaceId, sourceId, destinationId, audience, queued } = await setup();
    await runAudienceSync({ audienceId: audience.id, syncId: queued.id });
    const added = await insertDestination(workspaceId);
    const disabled = await insertDestination(workspaceId, { enabled: false });
    await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { destinationIds: [destinationId, added, disabled] } });
    await storeCalls(workspaceId, sourceId, [identify("u4", { plan: "pro" })]);

    const r = await runAudienceSync({ audienceId: audience.id });
    const sent = await sentBy(r.syncId!, "pro_buyers");
    expect(pairs(sent.filter((s) => s.destinationId === destinationId))).toEqual(["u4=true"]);
    expect(pairs(sent.filter((s) => s.destinationId === added))).toEqual(["u1=true", "u2=true", "u3=true", "u4=true"]);
    expect(sent.filter((s) => s.destinationId === disabled)).toEqual([]);
    expect(r.sent).toBe(5);
  });

  it("a renamed audience sends its full membership again under the new property", async () => {
    const { workspaceId, audience, queued } = await setup();
    await runAudienceSync({ audienceId: audience.id, syncId: queued.id });
    const renamed = await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { name: "Power Users" } });
    expect(renamed.propertyName).toBe("power_users");
    const r = await runAudienceSync({ audienceId: audience.id });
    expect(pairs(await sentBy(r.syncId!, "power_users"))).toEqual(["u1=true", "u2=true", "u3=true"]);
  });

  it("never runs two syncs of one audience at once: a sync finding the lock held is skipped and sends nothing", async () => {
    const { workspaceId, audience, queued } = await setup();
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      // Another worker is mid-sync on this audience.
      expect(await tryLockAudienceSync(holder, audience.id)).toBe(true);
      const r = await runAudienceSync({ audienceId: audience.id, syncId: queued.id });
      expect(r.status).toBe("skipped");
      expect(await sentBy(queued.id, "pro_buyers")).toEqual([]);
      const [sync] = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
      expect(sync).toMatchObject({ id: queued.id, status: "skipped", error: "Another sync of this audience was running" });
      await unlockAudienceSync(holder, audience.id);
    } finally {
      await holder.end();
    }

    // Many at once: every member is sent exactly once, whichever of them ran.
    const results = await Promise.all(Array.from({ length: 5 }, () => runAudienceSync({ audienceId: audience.id })));
    expect(results.reduce((n, r) => n + r.sent, 0)).toBe(3);
    const all = await pool().query(`SELECT count(*)::int AS n FROM messages WHERE origin = 'audience' AND origin_ref = ANY($1)`, [
      results.map((r) => r.syncId).filter(Boolean),
    ]);
    expect(all.rows[0].n).toBe(3);
  });

  it("asking for a sync while one is queued returns that one instead of queueing another", async () => {
    const { workspaceId, audience, queued } = await setup();
    const { withTransaction } = await import("../lib/platform/db");
    const { requestAudienceSync } = await import("../lib/audiences/syncs");
    const again = await withTransaction((c) => requestAudienceSync(c, { audienceId: audience.id, workspaceId, trigger: "manual" }));
    expect(again).toMatchObject({ created: false, sync: { id: queued.id } });
    await runAudienceSync({ audienceId: audience.id, syncId: queued.id });
    const next = await withTransaction((c) => requestAudienceSync(c, { audienceId: audience.id, workspaceId, trigger: "manual" }));
    expect(next.created).toBe(true);
    // Another workspace cannot ask.
    const other = await insertWorkspace();
    await expect(
      withTransaction((c) => requestAudienceSync(c, { audienceId: audience.id, workspaceId: other.workspaceId, trigger: "manual" })),
    ).rejects.toThrow("Audience not found");
  });

  it("the schedule's tick queues due audiences once, and not those synced within their interval", async () => {
    const { workspaceId, audience, queued } = await setup();
    await runAudienceSync({ audienceId: audience.id, syncId: queued.id });
    await updateAudience({ workspaceId, actor: TEST_ACTOR, id: audience.id, input: { scheduleMinutes: 5 } });
    expect(await queueDueAudienceSyncs()).not.toContain(audience.id); // synced a moment ago

    await pool().query(`UPDATE audience_syncs SET started_at = now() - interval '6 minutes' WHERE audience_id = $1`, [audience.id]);
    const [a, b] = await Promise.all([queueDueAudienceSyncs(), queueDueAudienceSyncs()]);
    expect([...a, ...b].filter((id) => id === audience.id)).toHaveLength(1);
    const syncs = await listAudienceSyncs({ workspaceId, audienceId: audience.id });
    expect(syncs[0]).toMatchObject({ status: "queued", trigger: "schedule" });
  });
});
