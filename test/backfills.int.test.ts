// Backfills (docs/routing.md#backfill): a destination sent the stored calls of its sources in a window,
// through its current filter, by a real worker to a real receiver on 127.0.0.1. The dry run's count is
// what is then delivered; each call goes at most once per backfill and, unless asked, not at all when
// it already has a delivery there; cancel stops it; a killed worker's backfill resumes from its cursor.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPage, firstCursor } from "../lib/backfills/pages";
import { PAGE_SIZE } from "../lib/backfills/run";
import { closeRuntime } from "../lib/platform/runtime";
import { startStack, startWorker, waitFor, type ApiClient, type Stack } from "./harness/stack";
import { startReceiver, type Receiver } from "./harness/delivery/receiver";
import { postTracking } from "./harness/tracking";

let stack: Stack;
let rx: Receiver;
let db: pg.Pool;
let api: ApiClient;
let other: ApiClient;
const ENV = { EVENTRAIL_RETRY_BASE_MS: "200" };

beforeAll(async () => {
  stack = await startStack({ workers: 1, env: ENV });
  process.env.DATABASE_URL = stack.databaseUrl;
  db = new pg.Pool({ connectionString: stack.databaseUrl, max: 3 });
  rx = await startReceiver(() => ({ status: 200 }));
  api = await stack.newWorkspace("A");
  other = await stack.newWorkspace("B");
});
afterAll(async () => {
  await db?.end();
  await rx?.close();
  await closeRuntime();
  await stack?.stop();
});

type Src = { id: string; writeKey: string };
const newSource = async (client: ApiClient, name: string): Promise<Src> => client.post("/api/sources", { name });

/** Posts `n` calls to a source through /v1/batch, `prefix-i` as messageIds; half "Order Completed", half "Viewed". */
async function post(src: Src, prefix: string, n: number) {
  for (let i = 0; i < n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i) }, (_, k) => ({
      type: "track",
      event: (i + k) % 2 === 0 ? "Order Completed" : "Viewed",
      userId: `u${(i + k) % 7}`,
      properties: { n: i + k },
      messageId: `${prefix}-${i + k}`,
    }));
    const res = await postTracking(stack.app.url, "/v1/batch", { batch }, { writeKey: src.writeKey });
    expect(res.status).toBe(200);
  }
}

const received = (path: string) => rx.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body).messageId as string);
const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

async function finished(dest: string, id: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const b = await api.get(`/api/destinations/${dest}/backfills/${id}`);
      return b.state !== "running" && b.done === b.queued && b;
    },
    { timeoutMs, what: `backfill ${id} to end` },
  );
}

/** No runner job of this backfill left to run (queued, running or to retry). */
const runnerGone = (id: string) =>
  waitFor(
    async () => {
      const { rows } = await db.query(
        "SELECT 1 FROM pgboss.job WHERE name = 'backfill' AND data->>'backfillId' = $1 AND state IN ('created', 'retry', 'active')",
        [id],
      );
      return rows.length === 0;
    },
    { what: "the backfill's runner to stop" },
  );

describe("backfills", () => {
  let s1: Src;
  let s2: Src;
  beforeAll(async () => {
    s1 = await newSource(api, "one");
    s2 = await newSource(api, "two");
    await post(s1, "one", 40);
    await post(s2, "two", 20);
    // Another workspace's calls, in the same window.
    const theirs = await newSource(other, "theirs");
    await post(theirs, "theirs", 10);
  });

  it("sends what the dry run counted, through the destination's current filter, from the chosen sources only", async () => {
    const dest = await api.post("/api/destinations", {
      name: "orders",
      urls: [`${rx.url}/orders`],
      sourceIds: [s1.id, s2.id],
      filter: { types: ["track"], events: { mode: "include", names: ["Order Completed"] } },
    });
    const body = { sourceIds: [s1.id], from: hourAgo() };
    const dry = await api.post(`/api/destinations/${dest.id}/backfills`, { ...body, dryRun: true });
    expect(dry.count).toBe(20);
    // A dry run creates nothing.
    expect((await api.get(`/api/destinations/${dest.id}/backfills`)).backfills).toEqual([]);

    const started = await api.post(`/api/destinations/${dest.id}/backfills`, body);
    expect(started).toMatchObject({ state: "running", total: 20 });
    const done = await finished(dest.id, started.id);
    expect(done).toMatchObject({ state: "finished", total: 20, queued: 20, done: 20 });

    const got = received("/orders");
    expect(got.length).toBe(dry.count);
    expect(new Set(got).size).toBe(got.length);
    expect(got.every((m) => m.startsWith("one-"))).toBe(true);
    expect(got.every((m) => Number(m.split("-")[1]) % 2 === 0)).toBe(true);

    // Its jobs went on the backfill lane, never on the live one.
    const { rows: lanes } = await db.query<{ name: string; n: number }>(
      `SELECT j.name, count(*)::int AS n FROM pgboss.job j
        WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.backfill_id = $1 AND j.data->'deliveryIds' ? d.id::text)
        GROUP BY j.name`,
      [started.id],
    );
    expect(lanes.map((l) => l.name)).toEqual(["deliver-backfill"]);

    // Its deliveries are ordinary ones, in the log, marked and filterable by the backfill.
    const log = await api.get(`/api/attempts?backfillId=${started.id}&limit=200`);
    expect(log.attempts).toHaveLength(20);
    expect(log.attempts.every((a: { backfillId: string }) => a.backfillId === started.id)).toBe(true);

    // The audit log: who started it, and the system finishing it.
    const audit = await api.get("/api/audit?limit=50");
    const actions = audit.events.filter((e: { resourceId: string }) => e.resourceId === dest.id).map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["backfill.start", "backfill.finish"]));
  });

  it("re-run over the same window sends nothing twice unless asked to resend", async () => {
    const dest = await api.post("/api/destinations", { name: "rerun", urls: [`${rx.url}/rerun`], sourceIds: [s2.id] });
    const body = { sourceIds: [s2.id], from: hourAgo() };
    const first = await api.post(`/api/destinations/${dest.id}/backfills`, body);
    await finished(dest.id, first.id);
    expect(received("/rerun")).toHaveLength(20);

    expect((await api.post(`/api/destinations/${dest.id}/backfills`, { ...body, dryRun: true })).count).toBe(0);
    const second = await api.post(`/api/destinations/${dest.id}/backfills`, body);
    expect(await finished(dest.id, second.id)).toMatchObject({ state: "finished", total: 0, queued: 0 });
    expect(received("/rerun")).toHaveLength(20);

    // Asked to, it sends each once more: one new delivery per call, a replay number of its own.
    expect((await api.post(`/api/destinations/${dest.id}/backfills`, { ...body, resend: true, dryRun: true })).count).toBe(20);
    const third = await api.post(`/api/destinations/${dest.id}/backfills`, { ...body, resend: true });
    expect(await finished(dest.id, third.id)).toMatchObject({ state: "finished", total: 20, queued: 20 });
    const got = received("/rerun");
    expect(got).toHaveLength(40);
    expect(new Set(got).size).toBe(20);
  });

  it("never includes another workspace's calls, and refuses its sources", async () => {
    const theirs = (await other.get("/api/sources")).sources[0];
    const dest = await api.post("/api/destinations", { name: "mine", urls: [`${rx.url}/mine`], sourceIds: [s1.id] });
    const r = await api.request("POST", `/api/destinations/${dest.id}/backfills`, {
      sourceIds: [theirs.id],
      from: hourAgo(),
      dryRun: true,
    });
    expect(r.status).toBe(422);
    expect(r.body.error.fields).toHaveProperty("sourceIds.0");
    // B cannot see or start A's backfills.
    expect((await other.request("POST", `/api/destinations/${dest.id}/backfills`, { sourceIds: [s1.id], from: hourAgo() })).status).toBe(
      404,
    );
    // The page reads its workspace's rows only, even given another workspace's source.
    const page = await readPage(
      db,
      {
        workspaceId: api.workspaceId!,
        destinationId: dest.id,
        sourceIds: [theirs.id],
        from: new Date(hourAgo()),
        to: new Date(),
        retainedFrom: new Date(0),
        resend: true,
        filter: null,
      },
      firstCursor({ from: new Date(hourAgo()) }),
      500,
    );
    expect(page.read).toBe(0);
  });

  it("refuses a window that starts before message retention, and never reads calls past it", async () => {
    const dest = await api.post("/api/destinations", { name: "old", urls: [`${rx.url}/old`], sourceIds: [s1.id] });
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const r = await api.request("POST", `/api/destinations/${dest.id}/backfills`, { sourceIds: [s1.id], from: longAgo, dryRun: true });
    expect(r.status).toBe(422);
    expect(r.body.error.fields.from[0]).toMatch(/retention/);

    // Calls that fell past retention while a backfill runs are not read: the page starts at retention.
    const aged = await newSource(api, "aged");
    await post(aged, "aged", 40);
    await db.query(
      `UPDATE messages SET received_at = now() - interval '30 minutes'
        WHERE id IN (SELECT id FROM messages WHERE source_id = $1 ORDER BY id LIMIT 10)`,
      [aged.id],
    );
    const scope = {
      workspaceId: api.workspaceId!,
      destinationId: dest.id,
      sourceIds: [aged.id],
      from: new Date(hourAgo()),
      to: new Date(),
      retainedFrom: new Date(Date.now() - 20 * 60_000),
      resend: false,
      filter: null,
    };
    const page = await readPage(db, scope, firstCursor(scope), 500);
    expect(page.messageRowIds).toHaveLength(30);
    // The same window with retention before it reads all 40.
    expect((await readPage(db, { ...scope, retainedFrom: new Date(0) }, firstCursor(scope), 500)).messageRowIds).toHaveLength(40);
  });

  it("cancel stops it: no delivery is created after the cancel commits", async () => {
    const big = await newSource(api, "big");
    await post(big, "big", 1_500);
    const dest = await api.post("/api/destinations", { name: "cancel", urls: [`${rx.url}/cancel`], sourceIds: [big.id] });
    // Paused, its deliveries wait: the runner fills its window (IN_FLIGHT) and waits for them.
    await api.post(`/api/destinations/${dest.id}/pause`);
    const started = await api.post(`/api/destinations/${dest.id}/backfills`, { sourceIds: [big.id], from: hourAgo() });
    expect(started.total).toBe(1_500);
    await waitFor(async () => (await api.get(`/api/destinations/${dest.id}/backfills/${started.id}`)).queued >= 1_000, {
      what: "the first pages to be queued",
    });
    const cancelled = await api.del(`/api/destinations/${dest.id}/backfills/${started.id}`);
    expect(cancelled.state).toBe("cancelled");
    const queuedAtCancel = cancelled.queued;
    expect(queuedAtCancel).toBeLessThan(1_500);

    await api.post(`/api/destinations/${dest.id}/resume`);
    await finished(dest.id, started.id);
    await runnerGone(started.id);
    const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE backfill_id = $1", [started.id]);
    expect(rows[0].n).toBe(queuedAtCancel);
    expect(received("/cancel")).toHaveLength(queuedAtCancel);
    const audit = await api.get("/api/audit?limit=50");
    expect(
      audit.events.some((e: { action: string; resourceId: string }) => e.action === "backfill.cancel" && e.resourceId === dest.id),
    ).toBe(true);
  });

  it("a resend backfill over more than one page reads each page once, from its stored cursor: every call sent once more", async () => {
    const calls = 2 * PAGE_SIZE + 1;
    const paged = await newSource(api, "paged");
    await post(paged, "paged", calls);
    const dest = await api.post("/api/destinations", { name: "paged", urls: [`${rx.url}/paged`], sourceIds: [paged.id] });
    const body = { sourceIds: [paged.id], from: hourAgo() };
    const first = await api.post(`/api/destinations/${dest.id}/backfills`, body);
    expect(await finished(dest.id, first.id, 120_000)).toMatchObject({ state: "finished", total: calls, queued: calls });
    const resent = await api.post(`/api/destinations/${dest.id}/backfills`, { ...body, resend: true });
    expect(await finished(dest.id, resent.id, 120_000)).toMatchObject({ state: "finished", total: calls, queued: calls });
    // Three pages, each read once: the runner ended with no cursor, and one delivery per call and backfill.
    const { rows: stored } = await db.query("SELECT cursor, exhausted FROM backfills WHERE id = $1", [resent.id]);
    expect(stored[0]).toEqual({ cursor: null, exhausted: true });
    const { rows } = await db.query<{ n: number; distinct: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT message_row_id)::int AS distinct FROM deliveries WHERE backfill_id = $1",
      [resent.id],
    );
    expect(rows[0]).toEqual({ n: calls, distinct: calls });
    const got = received("/paged");
    const times = new Map<string, number>();
    for (const m of got) times.set(m, (times.get(m) ?? 0) + 1);
    expect(times.size).toBe(calls);
    expect([...times.values()].every((n) => n === 2)).toBe(true);
  });

  it("a worker killed mid-backfill: the next one resumes from the cursor, one delivery per call, none skipped", async () => {
    const crash = await newSource(api, "crash");
    await post(crash, "crash", 1_500);
    const dest = await api.post("/api/destinations", { name: "crash", urls: [`${rx.url}/crash`], sourceIds: [crash.id] });
    await api.post(`/api/destinations/${dest.id}/pause`);
    const started = await api.post(`/api/destinations/${dest.id}/backfills`, { sourceIds: [crash.id], from: hourAgo() });
    await waitFor(async () => (await api.get(`/api/destinations/${dest.id}/backfills/${started.id}`)).queued >= 1_000, {
      what: "the first pages to be queued",
    });
    await stack.workers[0].kill("SIGKILL");
    await api.post(`/api/destinations/${dest.id}/resume`);
    stack.workers[0] = await startWorker(stack.databaseUrl, ENV);

    const done = await finished(dest.id, started.id, 120_000);
    expect(done).toMatchObject({ state: "finished", queued: 1_500, done: 1_500 });
    const { rows } = await db.query<{ n: number; distinct: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT message_row_id)::int AS distinct FROM deliveries WHERE backfill_id = $1",
      [started.id],
    );
    expect(rows[0]).toEqual({ n: 1_500, distinct: 1_500 });
    // Every call arrived (the engine is at-least-once: a batch cut short by the kill may have sent twice).
    expect(new Set(received("/crash")).size).toBe(1_500);
  });
});
