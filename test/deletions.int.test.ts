/**
 * The deletion job against a real Postgres and pg-boss: what is erased, what is kept, which delete
 * notices and deliveries are created, and how a failed run resumes. Data is inserted as the other
 * parts of the product store it (test/harness/deletions/seed.ts); the end-to-end path is in
 * test/deletions-api.int.test.ts.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./harness/pg";
import { count, seed } from "./harness/deletions/seed";

/** These changes are made by the test itself, calling lib directly: the audit log records them as the operator's. */
const TEST_ACTOR = { type: "operator", id: null, label: "test", address: null } as const;

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let client: pg.Pool;
let s: ReturnType<typeof seed>;
let lib: {
  requests: typeof import("../lib/deletions/requests");
  run: typeof import("../lib/deletions/run");
  runtime: typeof import("../lib/platform/runtime");
};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url; // read once by lib/platform/env on first use, below
  lib = {
    requests: await import("../lib/deletions/requests"),
    run: await import("../lib/deletions/run"),
    runtime: await import("../lib/platform/runtime"),
  };
  client = new pg.Pool({ connectionString: db.url, max: 2 });
  s = seed(client);
});

afterAll(async () => {
  await lib?.runtime.closeRuntime();
  await client?.end();
  await db?.drop();
});

async function requestAndRun(workspaceId: string, userIds: string[]) {
  const req = await lib.requests.createDeletionRequest({ actor: TEST_ACTOR, workspaceId, input: { userIds } });
  await lib.run.runDeletionRequest({ deletionRequestId: req.id, lastAttempt: false });
  return lib.requests.getDeletionRequest({ workspaceId, id: req.id });
}

describe("deletion job", () => {
  it("erases the user everywhere in the workspace and notifies each enabled destination of each affected source", async () => {
    const ws = await s.workspace();
    const web = await s.source(ws, "Web");
    const backend = await s.source(ws, "Backend");
    const mobile = await s.source(ws, "Mobile"); // holds no data for alice
    const onlyWeb = await s.destination(ws, { name: "only-web", sourceIds: [web] });
    const both = await s.destination(ws, { name: "both", sourceIds: [web, backend] });
    const disabled = await s.destination(ws, { name: "disabled", sourceIds: [web, backend], enabled: false });
    const onlyMobile = await s.destination(ws, { name: "only-mobile", sourceIds: [mobile] });

    // alice: a delivered track on web (with an attempt), an undelivered identify on backend,
    // an anonymous page on web before she identified, and a track still pending delivery.
    const delivered = await s.message(ws, { sourceId: web, userId: "alice", event: "Order Completed" });
    const dDelivered = await s.delivery(ws, delivered, onlyWeb);
    await s.attempt(ws, { deliveryId: dDelivered, destinationId: onlyWeb, messageRowId: delivered, userId: "alice" });
    const undelivered = await s.message(ws, { sourceId: backend, userId: "alice", type: "identify" });
    const anonymous = await s.message(ws, { sourceId: web, anonymousId: "anon-alice", type: "page" });
    const pending = await s.message(ws, { sourceId: web, userId: "alice", event: "Signed Up" });
    const dPending = await s.delivery(ws, pending, both, "pending");
    await s.profile(ws, "alice", ["anon-alice"]);
    await s.identityLink(ws, "anon-alice", "alice");
    await s.audienceMembers(ws, "vip", ["alice", "bob"]);
    await s.audienceMembers(ws, "churned", ["alice"]);
    await s.sourceCall(web, { type: "track", userId: "alice", properties: { secret: "pii" } });
    await s.sourceCall(web, { type: "page", anonymousId: "anon-alice" });

    // bob: same kinds of data, must stay.
    const bobMsg = await s.message(ws, { sourceId: web, userId: "bob", event: "Order Completed" });
    const bobDelivery = await s.delivery(ws, bobMsg, onlyWeb);
    await s.attempt(ws, { deliveryId: bobDelivery, destinationId: onlyWeb, messageRowId: bobMsg, userId: "bob" });
    await s.message(ws, { sourceId: backend, anonymousId: "anon-bob", type: "page" });
    await s.profile(ws, "bob", ["anon-bob"]);
    await s.identityLink(ws, "anon-bob", "bob");
    await s.sourceCall(web, { type: "track", userId: "bob" });

    // the same userId in another workspace is another person.
    const other = await s.workspace("other");
    const otherSource = await s.source(other, "Other");
    await s.destination(other, { name: "other", sourceIds: [otherSource] });
    await s.message(other, { sourceId: otherSource, userId: "alice" });
    await s.profile(other, "alice");

    const d = await requestAndRun(ws, ["alice"]);

    expect(d.status).toBe("completed");
    expect(d.affectedSources.map((x) => x.id).sort()).toEqual([web, backend].sort());
    expect(d.users).toEqual([
      expect.objectContaining({
        userId: "alice",
        done: true,
        affectedSourceIds: [web, backend].sort(),
        notifications: 3,
        erased: {
          messagesDeleted: 2,
          messagesRedacted: 2,
          deliveriesCancelled: 1,
          attemptsRedacted: 1,
          profiles: 1,
          identityLinks: 1,
          audienceMemberships: 2,
          sourceCalls: 2,
          capturedRequests: 0,
        },
      }),
    ]);

    // Notices: web → only-web and both; backend → both. Nothing to the disabled or unaffected destination.
    const got = d.notifications.map((n) => `${n.source.name}→${n.destination.name}:${n.state}`).sort();
    expect(got).toEqual(["Backend→both:pending", "Web→both:pending", "Web→only-web:pending"]);
    for (const id of [disabled, onlyMobile]) expect(await count(client, "deliveries WHERE destination_id = $1", [id])).toBe(0);
    expect(d.notificationTotals).toEqual({ pending: 3, delivered: 0, failed: 0 });

    const { rows: notices } = await client.query(
      "SELECT source_id, message_id, type, user_id, origin, origin_ref, payload FROM messages WHERE origin = 'deletion' AND workspace_id = $1 ORDER BY source_id",
      [ws],
    );
    expect(notices).toHaveLength(2);
    for (const n of notices) {
      expect(n).toMatchObject({ type: "delete", user_id: "alice", origin_ref: d.id });
      expect(n.payload).toEqual({ type: "delete", userId: "alice", timestamp: d.createdAt, messageId: n.message_id });
    }
    // Each notice delivery is carried by a committed `deliver` job.
    const { rows: jobs } = await client.query("SELECT data FROM pgboss.job WHERE name = 'deliver'");
    const queued = jobs.flatMap((j) => j.data.deliveryIds);
    expect(queued.sort()).toEqual(d.notifications.map((n) => n.deliveryId).sort());

    // alice's data: gone, or (when it was delivered somewhere) kept as a skeleton without data.
    expect(await count(client, "messages WHERE id = ANY($1)", [[undelivered, anonymous]])).toBe(0);
    const { rows: kept } = await client.query("SELECT payload, user_id, anonymous_id, event FROM messages WHERE id = ANY($1)", [
      [delivered, pending],
    ]);
    expect(kept).toEqual([
      { payload: null, user_id: null, anonymous_id: null, event: null },
      { payload: null, user_id: null, anonymous_id: null, event: null },
    ]);
    expect(await count(client, "messages WHERE workspace_id = $1 AND user_id = 'alice' AND origin <> 'deletion'", [ws])).toBe(0);
    expect(await count(client, "messages WHERE workspace_id = $1 AND anonymous_id = 'anon-alice'", [ws])).toBe(0);
    const { rows: cancelled } = await client.query("SELECT state, last_error FROM deliveries WHERE id = $1", [dPending]);
    expect(cancelled[0]).toEqual({ state: "failed", last_error: "Cancelled: the message was erased by a deletion request" });
    const { rows: aliceAttempts } = await client.query(
      "SELECT user_id, url, response_status, outcome, request_body, response_body FROM attempts WHERE delivery_id = $1",
      [dDelivered],
    );
    expect(aliceAttempts).toEqual([
      {
        user_id: "alice",
        url: "http://127.0.0.1:9/hook",
        response_status: 200,
        outcome: "success",
        request_body: null,
        response_body: null,
      },
    ]);
    expect(await count(client, "profiles WHERE workspace_id = $1 AND user_id = 'alice'", [ws])).toBe(0);
    expect(await count(client, "identity_links WHERE workspace_id = $1 AND user_id = 'alice'", [ws])).toBe(0);
    expect(await count(client, "audience_members WHERE user_id = 'alice'")).toBe(0);
    expect(await count(client, "source_calls WHERE payload->>'userId' = 'alice' OR payload->>'anonymousId' = 'anon-alice'")).toBe(0);

    // bob and the other workspace: untouched.
    expect(
      await count(client, "messages WHERE workspace_id = $1 AND (user_id = 'bob' OR anonymous_id = 'anon-bob') AND payload IS NOT NULL", [
        ws,
      ]),
    ).toBe(2);
    const { rows: bobAttempts } = await client.query("SELECT request_body, response_body FROM attempts WHERE delivery_id = $1", [
      bobDelivery,
    ]);
    expect(bobAttempts).toEqual([{ request_body: '{"secret":"pii"}', response_body: "echo pii" }]);
    expect(await count(client, "profiles WHERE workspace_id = $1 AND user_id = 'bob'", [ws])).toBe(1);
    expect(await count(client, "identity_links WHERE workspace_id = $1 AND user_id = 'bob'", [ws])).toBe(1);
    expect(await count(client, "audience_members WHERE user_id = 'bob'")).toBe(1);
    expect(await count(client, "source_calls WHERE payload->>'userId' = 'bob'")).toBe(1);
    expect(await count(client, "messages WHERE workspace_id = $1 AND user_id = 'alice' AND payload IS NOT NULL", [other])).toBe(1);
    expect(await count(client, "profiles WHERE workspace_id = $1", [other])).toBe(1);

    // Re-submitting is harmless: nothing left to find, nothing sent.
    const again = await requestAndRun(ws, ["alice"]);
    expect(again.status).toBe("completed");
    expect(again.affectedSources).toEqual([]);
    expect(again.notifications).toEqual([]);
    expect(await count(client, "messages WHERE origin = 'deletion' AND workspace_id = $1", [ws])).toBe(2);
    // Running the finished job again (a duplicate job) changes nothing either.
    await lib.run.runDeletionRequest({ deletionRequestId: d.id, lastAttempt: false });
    expect(await count(client, "deliveries WHERE message_row_id IN (SELECT id FROM messages WHERE origin = 'deletion')")).toBe(3);
  });

  it("completes a request for an unknown user with nothing affected and nothing sent", async () => {
    const ws = await s.workspace();
    const src = await s.source(ws, "Web");
    await s.destination(ws, { name: "hook", sourceIds: [src] });
    await s.message(ws, { sourceId: src, userId: "someone-else" });

    const d = await requestAndRun(ws, ["nobody"]);
    expect(d).toMatchObject({
      status: "completed",
      usersDone: 1,
      affectedSourceCount: 0,
      notificationCount: 0,
      affectedSources: [],
      notifications: [],
    });
    expect(d.users[0]).toMatchObject({ userId: "nobody", done: true, affectedSourceIds: [], notifications: 0 });
    expect(await count(client, "messages WHERE workspace_id = $1", [ws])).toBe(1);
    expect(await count(client, "deliveries WHERE workspace_id = $1", [ws])).toBe(0);
  });

  it("keeps the users already erased when a run fails, resumes without duplicates, and marks the last failure", async () => {
    const ws = await s.workspace();
    const src = await s.source(ws, "Web");
    const hook = await s.destination(ws, { name: "hook", sourceIds: [src] });
    for (const u of ["u1", "poison", "u3"]) {
      await s.message(ws, { sourceId: src, userId: u });
      await s.profile(ws, u);
    }
    // A real database error while erasing "poison", after u1 was committed.
    await client.query(`CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF OLD.user_id = 'poison' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN OLD; END $$`);
    await client.query("CREATE TRIGGER poison BEFORE DELETE ON profiles FOR EACH ROW EXECUTE FUNCTION poison()");

    const req = await lib.requests.createDeletionRequest({
      actor: TEST_ACTOR,
      workspaceId: ws,
      input: { userIds: ["u1", "poison", "u3"] },
    });
    await expect(lib.run.runDeletionRequest({ deletionRequestId: req.id, lastAttempt: false })).rejects.toThrow("disk on fire");
    let d = await lib.requests.getDeletionRequest({ workspaceId: ws, id: req.id });
    expect(d.status).toBe("running");
    expect(d.users.map((u) => [u.userId, u.done])).toEqual([
      ["u1", true],
      ["poison", false],
      ["u3", false],
    ]);
    // The failed user's transaction rolled back whole: its data and no notice.
    expect(await count(client, "messages WHERE workspace_id = $1 AND user_id = 'poison'", [ws])).toBe(1);

    await lib.run.runDeletionRequest({ deletionRequestId: req.id, lastAttempt: true });
    d = await lib.requests.getDeletionRequest({ workspaceId: ws, id: req.id });
    expect(d.status).toBe("failed");
    expect(d.error).toMatch(/could not be completed/);
    expect(d.error).not.toMatch(/disk on fire/);

    await client.query("DROP TRIGGER poison ON profiles");
    await lib.run.runDeletionRequest({ deletionRequestId: req.id, lastAttempt: false });
    d = await lib.requests.getDeletionRequest({ workspaceId: ws, id: req.id });
    expect(d.status).toBe("completed");
    expect(d.error).toBeNull();
    expect(d.users.map((u) => [u.userId, u.done, u.notifications])).toEqual([
      ["u1", true, 1],
      ["poison", true, 1],
      ["u3", true, 1],
    ]);
    expect(await count(client, "deliveries WHERE destination_id = $1", [hook])).toBe(3);
    expect(await count(client, "messages WHERE workspace_id = $1 AND origin = 'api'", [ws])).toBe(0);
  });

  it("shows its notices and their totals as of one moment while the notices are being delivered", async () => {
    const ws = await s.workspace();
    const src = await s.source(ws, "Web");
    for (const name of ["a", "b", "c", "d"]) await s.destination(ws, { name, sourceIds: [src] });
    await s.message(ws, { sourceId: src, userId: "carol" });
    const d0 = await requestAndRun(ws, ["carol"]);
    expect(d0.notifications).toHaveLength(4);
    const ids = d0.notifications.map((n) => n.deliveryId);

    // The delivery engine moves notices on while someone reads the request (a CI run saw a notice
    // "pending" beside totals of 0 pending). Here another connection flips one notice at a time,
    // each its own commit, and every read must agree with itself.
    let flipping = true;
    const flips = (async () => {
      for (let i = 0; flipping && i < 100_000; i++) {
        await client.query("UPDATE deliveries SET state = CASE state WHEN 'pending' THEN 'delivered' ELSE 'pending' END WHERE id = $1", [
          ids[i % ids.length],
        ]);
      }
    })();
    try {
      for (let read = 0; read < 300; read++) {
        const d = await lib.requests.getDeletionRequest({ workspaceId: ws, id: d0.id });
        const listed = (state: string) => d.notifications.filter((n) => n.state === state).length;
        expect({ read, ...d.notificationTotals }).toEqual({ read, pending: listed("pending"), delivered: listed("delivered"), failed: 0 });
      }
    } finally {
      flipping = false;
      await flips;
    }
  });

  it("scopes requests to their workspace", async () => {
    const a = await s.workspace();
    const b = await s.workspace();
    const req = await lib.requests.createDeletionRequest({ actor: TEST_ACTOR, workspaceId: a, input: { userIds: ["x"] } });
    await expect(lib.requests.getDeletionRequest({ workspaceId: b, id: req.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(lib.requests.getDeletionRequest({ workspaceId: a, id: "not-a-uuid" })).rejects.toMatchObject({ code: "not_found" });
    expect((await lib.requests.listDeletionRequests({ workspaceId: b, limit: 50 })).deletions).toEqual([]);
    const list = await lib.requests.listDeletionRequests({ workspaceId: a, limit: 50 });
    expect(list.deletions.map((x) => [x.id, x.status])).toEqual([[req.id, "pending"]]);
  });

  it("pages the list newest first", async () => {
    const ws = await s.workspace();
    const ids = [];
    for (let i = 0; i < 5; i++) {
      const { id } = await lib.requests.createDeletionRequest({ actor: TEST_ACTOR, workspaceId: ws, input: { userIds: [`u${i}`] } });
      // Distinct creation times: requests made within one millisecond are ordered by id instead.
      await client.query("UPDATE deletion_requests SET created_at = now() - make_interval(mins => $2) WHERE id = $1", [id, 5 - i]);
      ids.push(id);
    }
    const first = await lib.requests.listDeletionRequests({ workspaceId: ws, limit: 3 });
    const second = await lib.requests.listDeletionRequests({ workspaceId: ws, limit: 3, cursor: first.nextCursor! });
    expect([...first.deletions, ...second.deletions].map((x) => x.id)).toEqual(ids.reverse());
    expect(second.nextCursor).toBeNull();
    await expect(lib.requests.listDeletionRequests({ workspaceId: ws, limit: 3, cursor: "garbage" })).rejects.toMatchObject({
      code: "validation_failed",
    });
  });
});
