// The request log by message (GET /api/deliveries): one row per message and destination with its
// replays folded in, filters, keyset paging and workspace scope; the failure groups' counts and what a
// replay of a group sends agree; test-sends count toward neither endpoint health nor alerts (issue 52).
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateEndpointAlerts } from "../lib/alerts/evaluate";
import { startStack, type ApiClient, type Stack } from "./harness/stack";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;
let db: pg.Client;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  process.env.DATABASE_URL = stack.databaseUrl;
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const URL_A = "https://hooks.example.com/a";
const T0 = new Date(Date.now() - 30 * 60_000);
const at = (s: number) => new Date(T0.getTime() + s * 1000);

type Try = { status: number | null; outcome: "success" | "retry" | "failed"; errorKind?: string };

/**
 * A message and its deliveries to one destination, written as the worker leaves them: a chain of
 * deliveries (the first, then each replay), each with its attempts.
 */
async function seedMessage(o: {
  workspaceId: string;
  destinationId: string;
  s: number;
  userId: string;
  origin?: "api" | "test";
  chain: { state: "pending" | "delivered" | "failed"; tries: Try[] }[];
}) {
  const messageRowId = randomUUID();
  const messageId = `msg-${randomUUID()}`;
  await db.query(
    `INSERT INTO messages (id, workspace_id, message_id, type, event, user_id, timestamp, origin)
     VALUES ($1, $2, $3, 'track', 'Order Completed', $4, $5, $6)`,
    [messageRowId, o.workspaceId, messageId, o.userId, at(o.s), o.origin ?? "api"],
  );
  let previous: string | null = null;
  let n = 0;
  for (const [replay, d] of o.chain.entries()) {
    const id = randomUUID();
    const last = d.tries[d.tries.length - 1];
    await db.query(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, state, attempt_count, last_status, last_error,
                               last_attempt_at, next_attempt_at, created_at, replay_of, replay_number)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        id,
        o.workspaceId,
        messageRowId,
        o.destinationId,
        d.state,
        d.tries.length,
        last?.status ?? null,
        last && last.outcome !== "success" ? (last.status ? `HTTP ${last.status}` : `${last.errorKind} error`) : null,
        last ? at(o.s + replay * 10 + d.tries.length) : null,
        d.state === "pending" && last ? at(o.s + 600) : null,
        at(o.s + replay * 10),
        previous,
        replay,
      ],
    );
    for (const [i, t] of d.tries.entries()) {
      n++;
      await db.query(
        `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, user_id, url, attempt_number,
                               started_at, duration_ms, request_headers, request_body, outcome, response_status, error_kind, error_text)
         VALUES ($1, $2, $3, $4, $5, 'track', $6, $7, $8, $9, 10, '{}', '{}', $10, $11, $12, $13)`,
        [
          o.workspaceId,
          id,
          o.destinationId,
          messageRowId,
          messageId,
          o.userId,
          URL_A,
          i + 1,
          at(o.s + replay * 10 + i + 1),
          t.outcome,
          t.status,
          t.errorKind ?? (t.status && t.status >= 300 ? "http" : null),
          t.outcome === "success" ? null : t.status ? `HTTP ${t.status}` : `${t.errorKind} error`,
        ],
      );
    }
    previous = id;
  }
  return { messageRowId, messageId, attempts: n };
}

const ok: Try = { status: 200, outcome: "success" };
const retry500: Try = { status: 500, outcome: "retry" };
const failed500: Try = { status: 500, outcome: "failed" };

describe("GET /api/deliveries", () => {
  let d1: string;
  let d2: string;
  const m: Record<string, Awaited<ReturnType<typeof seedMessage>>> = {};

  beforeAll(async () => {
    const dest = (name: string) => a.post("/api/destinations", { name, urls: [URL_A], headers: [], enabled: true, sourceIds: [] });
    d1 = (await dest("Orders")).id;
    d2 = (await dest("Audit")).id;
    const w = a.workspaceId!;
    m.delivered = await seedMessage({
      workspaceId: w,
      destinationId: d1,
      s: 0,
      userId: "u1",
      chain: [{ state: "delivered", tries: [retry500, retry500, ok] }],
    });
    m.replayed = await seedMessage({
      workspaceId: w,
      destinationId: d1,
      s: 20,
      userId: "u2",
      chain: [
        { state: "failed", tries: [{ status: 400, outcome: "failed" }] },
        { state: "delivered", tries: [ok] },
      ],
    });
    m.retrying = await seedMessage({
      workspaceId: w,
      destinationId: d1,
      s: 40,
      userId: "u3",
      chain: [{ state: "pending", tries: [retry500, retry500] }],
    });
    m.waiting = await seedMessage({ workspaceId: w, destinationId: d2, s: 60, userId: "u4", chain: [{ state: "pending", tries: [] }] });
    m.failed = await seedMessage({
      workspaceId: w,
      destinationId: d1,
      s: 80,
      userId: "u5",
      chain: [{ state: "failed", tries: [retry500, retry500, failed500] }],
    });
    // Another workspace's message at its own destination.
    const other = (await b.post("/api/destinations", { name: "B", urls: [URL_A], headers: [], enabled: true, sourceIds: [] })).id;
    await seedMessage({
      workspaceId: b.workspaceId!,
      destinationId: other,
      s: 90,
      userId: "u1",
      chain: [{ state: "failed", tries: [failed500] }],
    });
  });

  const rows = async (q = "") => (await a.get(`/api/deliveries?${q}`)).deliveries as Record<string, any>[];

  it("lists one row per message and destination, newest first, with its status, attempts and last answer", async () => {
    const all = await rows();
    expect(all.map((r) => r.messageRowId)).toEqual([m.failed, m.waiting, m.retrying, m.replayed, m.delivered].map((x) => x.messageRowId));
    expect(all.map((r) => [r.status, r.attempts, r.replays, r.lastStatus])).toEqual([
      ["failed", 3, 0, 500],
      ["waiting", 0, 0, null],
      ["retrying", 2, 0, 500],
      // its replay delivered it: one row, the chain's attempts, the replay's answer
      ["delivered", 2, 1, 200],
      ["delivered", 3, 0, 200],
    ]);
    expect(all[0]).toMatchObject({
      destinationId: d1,
      destinationName: "Orders",
      type: "track",
      event: "Order Completed",
      userId: "u5",
      messageId: m.failed.messageId,
      lastError: "HTTP 500",
      testSend: false,
    });
    expect(all[2].nextAttemptAt).not.toBeNull();
    // The rows' attempts are the attempts the flat log lists for the workspace.
    const flat = (await a.get("/api/attempts?limit=200")).attempts;
    expect(all.reduce((n, r) => n + r.attempts, 0)).toBe(flat.length);
  });

  it("filters by status, destination, message, user and attempt filters", async () => {
    const ids = async (q: string) => (await rows(q)).map((r) => r.messageRowId);
    expect(await ids("state=failed")).toEqual([m.failed.messageRowId]);
    expect(await ids("state=retrying")).toEqual([m.retrying.messageRowId]);
    expect(await ids("state=waiting")).toEqual([m.waiting.messageRowId]);
    expect(await ids("state=delivered")).toEqual([m.replayed.messageRowId, m.delivered.messageRowId]);
    expect(await ids(`destinationId=${d2}`)).toEqual([m.waiting.messageRowId]);
    expect(await ids(`messageId=${m.retrying.messageId}`)).toEqual([m.retrying.messageRowId]);
    expect(await ids("userId=u2")).toEqual([m.replayed.messageRowId]);
    // a message with an attempt that matches
    expect(await ids("status=500")).toEqual([m.failed, m.retrying, m.delivered].map((x) => x.messageRowId));
    expect(await ids("outcome=failed")).toEqual([m.failed, m.replayed].map((x) => x.messageRowId));
    expect(await ids(`status=500&state=retrying&destinationId=${d1}`)).toEqual([m.retrying.messageRowId]);
    expect(await ids("type=identify")).toEqual([]);
    expect(await ids("event=Order%20Completed&userId=u5")).toEqual([m.failed.messageRowId]);
    expect(await ids(`from=${at(50).toISOString()}`)).toEqual([m.failed, m.waiting].map((x) => x.messageRowId));
  });

  it("pages by keyset without repeating or skipping a row", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { deliveries: { id: string }[]; nextCursor: string | null } = await a.get(
        `/api/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...page.deliveries.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual((await rows()).map((r) => r.id));
    expect((await a.request("GET", "/api/deliveries?cursor=12")).status).toBe(422);
    expect((await a.request("GET", "/api/deliveries?state=lost")).status).toBe(422);
  });

  it("shows a workspace only its own messages", async () => {
    const theirs = await b.get("/api/deliveries");
    expect(theirs.deliveries).toHaveLength(1);
    expect(theirs.deliveries[0].userId).toBe("u1");
    expect((await b.get(`/api/deliveries?destinationId=${d1}`)).deliveries).toEqual([]);
    expect((await fetch(`${stack.app.url}/api/deliveries`)).status).toBe(401);
  });
});

describe("failure groups and replay agree", () => {
  it("say what failed, what is still retrying and what a replay sends, and the replay sends exactly that", async () => {
    const dest = (await a.post("/api/destinations", { name: "Triage", urls: [URL_A], headers: [], enabled: true, sourceIds: [] })).id;
    const w = a.workspaceId!;
    const failed = [];
    for (let i = 0; i < 2; i++)
      failed.push(
        await seedMessage({
          workspaceId: w,
          destinationId: dest,
          s: 100 + i,
          userId: "t",
          chain: [{ state: "failed", tries: [retry500, failed500] }],
        }),
      );
    for (let i = 0; i < 3; i++)
      await seedMessage({
        workspaceId: w,
        destinationId: dest,
        s: 110 + i,
        userId: "t",
        chain: [{ state: "pending", tries: [retry500, retry500, retry500] }],
      });
    await seedMessage({ workspaceId: w, destinationId: dest, s: 120, userId: "t", chain: [{ state: "delivered", tries: [retry500, ok] }] });
    const from = T0.toISOString();
    const to = new Date().toISOString();
    const { groups } = await a.get(`/api/stats/failures?destinationId=${dest}&from=${from}&to=${to}`);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ responseStatus: 500, attempts: 4 + 9 + 1, messages: 6, failed: 2, retrying: 3, delivered: 1 });
    // The overview's "Replay 2 failed…" replays the group's filter (components/overview/failure-groups.tsx groupFilter).
    const filter = { destinationId: dest, url: URL_A, from, to, status: 500 };
    expect(await a.post("/api/messages/replay", { filter, dryRun: true })).toEqual({ count: 2, stillRetrying: 3, delivered: 1 });
    expect(await a.post("/api/messages/replay", { filter })).toEqual({ replayed: 2 });
    const { rows: made } = await db.query(
      "SELECT message_row_id FROM deliveries WHERE destination_id = $1 AND replay_number = 1 ORDER BY message_row_id",
      [dest],
    );
    expect(made.map((r) => r.message_row_id)).toEqual(failed.map((f) => f.messageRowId).sort());
    // Now those two are being replayed: nothing left failed, five pending.
    const after = (await a.get(`/api/stats/failures?destinationId=${dest}&from=${from}&to=${to}`)).groups[0];
    expect(after).toMatchObject({ failed: 0, retrying: 5, delivered: 1 });
  });
});

describe("test-sends", () => {
  it("count toward neither endpoint health nor alerts", async () => {
    const url = "https://hooks.example.com/tested";
    const dest = (await a.post("/api/destinations", { name: "Tested", urls: [url], headers: [], enabled: true, sourceIds: [] })).id;
    const w = a.workspaceId!;
    // Ten failed test-sends to the destination's own URL, a minute ago.
    const tried = [];
    for (let i = 0; i < 10; i++)
      tried.push(
        await seedMessage({
          workspaceId: w,
          destinationId: dest,
          s: 1700 + i,
          userId: "tester",
          origin: "test",
          chain: [{ state: "failed", tries: [{ status: 500, outcome: "failed" }] }],
        }),
      );
    await db.query("UPDATE attempts SET url = $1 WHERE destination_id = $2", [url, dest]);
    const health = await a.get(`/api/destinations/${dest}/health`);
    expect(health.urls[0]).toMatchObject({ url, state: "unknown", attempts: 0, consecutiveFailures: 0 });
    const { events } = await evaluateEndpointAlerts({ now: new Date(Date.now() + 3 * 3600_000), workspaceId: w, destinationIds: [dest] });
    expect(events).toEqual([]);
    // The same attempts from real traffic do count.
    await db.query("UPDATE messages SET origin = 'api' WHERE id = ANY($1::uuid[])", [tried.map((t) => t.messageRowId)]);
    const real = await a.get(`/api/destinations/${dest}/health`);
    expect(real.urls[0]).toMatchObject({ url, attempts: 10, state: "unhealthy" });
    const judged = await evaluateEndpointAlerts({ now: new Date(Date.now() + 3 * 3600_000), workspaceId: w, destinationIds: [dest] });
    expect(judged.events.map((e) => e.kind)).toEqual(["opened"]);
  });
});
