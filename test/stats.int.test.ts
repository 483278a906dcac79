import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type ApiClient, type Stack } from "./harness/stack";

let stack: Stack;
let a: ApiClient;
let b: ApiClient;
let db: pg.Client;

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  a = await stack.newWorkspace("A");
  b = await stack.newWorkspace("B");
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

type Seed = { workspaceId: string; destinationId: string; at: Date; outcome: "success" | "retry" | "failed"; durationMs: number };

/** Attempts rows written directly: the stats read the request log, whoever wrote it. */
async function seed(rows: Seed[]) {
  for (const r of rows) {
    await db.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, outcome)
       VALUES ($1, $2, $3, $4, $5, 'track', 'https://example.com/hook', 1, $6, $7, '{}', '{}', $8)`,
      [r.workspaceId, randomUUID(), r.destinationId, randomUUID(), randomUUID(), r.at, r.durationMs, r.outcome],
    );
  }
}

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

describe("GET /api/stats/deliveries", () => {
  const d1 = randomUUID();
  const d2 = randomUUID();

  beforeAll(async () => {
    // Destination 1: minute 0 → durations 10..100 (10 attempts: 8 success, 1 retry, 1 failed); minute 2 → 1 success.
    await seed(
      Array.from({ length: 10 }, (_, i) => ({
        workspaceId: a.workspaceId!,
        destinationId: d1,
        at: new Date(at(0).getTime() + i * 1000),
        outcome: i === 8 ? ("retry" as const) : i === 9 ? ("failed" as const) : ("success" as const),
        durationMs: (i + 1) * 10,
      })),
    );
    await seed([{ workspaceId: a.workspaceId!, destinationId: d1, at: at(2), outcome: "success", durationMs: 500 }]);
    // Destination 2 in the same workspace, and another workspace's attempts in the same window.
    await seed([{ workspaceId: a.workspaceId!, destinationId: d2, at: at(1), outcome: "failed", durationMs: 5000 }]);
    await seed([{ workspaceId: b.workspaceId!, destinationId: randomUUID(), at: at(0), outcome: "success", durationMs: 1 }]);
    // Outside the window.
    await seed([{ workspaceId: a.workspaceId!, destinationId: d1, at: at(10), outcome: "success", durationMs: 1 }]);
  });

  const window = `from=${at(0).toISOString()}&to=${at(5).toISOString()}`;

  it("counts attempts by outcome per bucket with latency percentiles, continuous over empty buckets", async () => {
    const s = await a.get(`/api/stats/deliveries?destinationId=${d1}&${window}&bucket=1m`);
    expect(s.bucketSeconds).toBe(60);
    expect(s.series.map((x: { start: string }) => x.start)).toEqual([0, 1, 2, 3, 4].map((m) => at(m).toISOString()));
    const [m0, m1, m2] = s.series;
    expect(m0).toMatchObject({ total: 10, success: 8, retry: 1, failed: 1, successRate: 0.8 });
    // percentile_cont over 10..100: p50 = 55, p95 = 95.5, p99 = 99.1
    expect(m0.p50).toBeCloseTo(55, 5);
    expect(m0.p95).toBeCloseTo(95.5, 5);
    expect(m0.p99).toBeCloseTo(99.1, 5);
    expect(m1).toMatchObject({ total: 0, successRate: null, p50: null });
    expect(m2).toMatchObject({ total: 1, success: 1, p50: 500, p99: 500 });
    expect(s.totals).toMatchObject({ total: 11, success: 9, retry: 1, failed: 1 });
    expect(s.totals.successRate).toBeCloseTo(9 / 11, 10);
    expect(s.totals.p50).toBe(60);
  });

  it("covers every destination of the workspace when none is named, and nothing of other workspaces", async () => {
    const s = await a.get(`/api/stats/deliveries?${window}&bucket=1m`);
    expect(s.totals).toMatchObject({ total: 12, success: 9, failed: 2 });
    expect(s.series[1]).toMatchObject({ total: 1, failed: 1, p50: 5000 });
    const other = await b.get(`/api/stats/deliveries?${window}&bucket=1m`);
    expect(other.totals.total).toBe(1);
  });

  it("gives per-destination volume and success rate", async () => {
    const { destinations } = await a.get(`/api/stats/destinations?${window}`);
    const byId = Object.fromEntries(destinations.map((d: { destinationId: string }) => [d.destinationId, d]));
    expect(byId[d1]).toMatchObject({ total: 11, success: 9 });
    expect(byId[d2]).toMatchObject({ total: 1, success: 0, failed: 1, successRate: 0 });
    expect(Object.keys(byId)).toHaveLength(2);
  });

  it("refuses bad parameters with field errors", async () => {
    const r = await a.request("GET", `/api/stats/deliveries?from=${at(5).toISOString()}&to=${at(0).toISOString()}&bucket=1w`);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.fields).sort()).toEqual(["bucket"]);
    const inverted = await a.request("GET", `/api/stats/deliveries?from=${at(5).toISOString()}&to=${at(0).toISOString()}`);
    expect(inverted.body.error.fields.from).toBeDefined();
    expect((await a.request("GET", "/api/stats/deliveries?destinationId=nope")).status).toBe(422);
    expect((await fetch(`${stack.app.url}/api/stats/deliveries`)).status).toBe(401);
  });
});

describe("events: each delivery counted once, by its state now", () => {
  const d = randomUUID();
  const T1 = new Date("2026-04-01T10:00:00.000Z");
  const t = (s: number) => new Date(T1.getTime() + s * 1000);

  /** A delivery in `state` and its attempts (outcomes in order, a second apart); a replay names its message and number. */
  async function event(
    state: "delivered" | "pending" | "failed",
    outcomes: Seed["outcome"][],
    replay: { messageRowId: string; replayNumber: number } = { messageRowId: randomUUID(), replayNumber: 0 },
  ) {
    const deliveryId = randomUUID();
    const messageRowId = replay.messageRowId;
    await db.query(
      `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, state, attempt_count, created_at, replay_number)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [deliveryId, a.workspaceId, messageRowId, d, state, outcomes.length, T1, replay.replayNumber],
    );
    for (const [i, outcome] of outcomes.entries()) {
      await db.query(
        `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number,
                               started_at, duration_ms, request_headers, request_body, outcome)
         VALUES ($1, $2, $3, $4, $5, 'track', 'https://example.com/hook', $6, $7, 10, '{}', '{}', $8)`,
        [a.workspaceId, deliveryId, d, messageRowId, randomUUID(), i + 1, t(i), outcome],
      );
    }
  }

  beforeAll(async () => {
    // Five retries then delivered; delivered at once; still retrying; given up after three.
    await event("delivered", ["retry", "retry", "retry", "retry", "retry", "success"]);
    await event("delivered", ["success"]);
    await event("pending", ["retry", "retry"]);
    await event("failed", ["retry", "retry", "failed"]);
    // An attempt without a delivery (a test-send): an attempt, not an event.
    await db.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, outcome)
       VALUES ($1, $2, $3, $4, $5, 'track', 'https://example.com/hook', 1, $6, 10, '{}', '{}', 'success')`,
      [a.workspaceId, randomUUID(), d, randomUUID(), randomUUID(), t(30)],
    );
    // Failed, then replayed into success: one event, delivered.
    const replayed = randomUUID();
    await event("failed", ["failed"], { messageRowId: replayed, replayNumber: 0 });
    await event("delivered", ["success"], { messageRowId: replayed, replayNumber: 1 });
  });

  const window = `from=${T1.toISOString()}&to=${new Date(T1.getTime() + 60_000).toISOString()}`;

  it("counts events apart from attempts, overall and per destination", async () => {
    const s = await a.get(`/api/stats/deliveries?destinationId=${d}&${window}&bucket=1m`);
    expect(s.totals).toMatchObject({ total: 15, success: 4, retry: 9, failed: 2 });
    expect(s.events).toEqual({ total: 5, delivered: 3, pending: 1, failed: 1, retried: 4 });
    const { destinations } = await a.get(`/api/stats/destinations?${window}`);
    expect(destinations.find((x: { destinationId: string }) => x.destinationId === d).events).toEqual(s.events);
    expect((await b.get(`/api/stats/deliveries?${window}&bucket=1m`)).events.total).toBe(0);
  });
});

describe("GET /api/stats/failures and the log's reason filters", () => {
  const d = randomUUID();
  const T2 = new Date("2026-05-01T10:00:00.000Z");
  const window = `from=${T2.toISOString()}&to=${new Date(T2.getTime() + 60_000).toISOString()}`;

  /** A track message with `event` and one attempt of it. */
  async function attempt(o: {
    url: string;
    status: number | null;
    errorKind?: string;
    outcome: Seed["outcome"];
    event: string;
    s: number;
  }) {
    const messageRowId = randomUUID();
    await db.query(`INSERT INTO messages (id, workspace_id, message_id, type, event, timestamp) VALUES ($1, $2, $3, 'track', $4, $5)`, [
      messageRowId,
      a.workspaceId,
      randomUUID(),
      o.event,
      T2,
    ]);
    await db.query(
      `INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number,
                             started_at, duration_ms, request_headers, request_body, outcome, response_status, error_kind, error_text)
       VALUES ($1, $2, $3, $4, $5, 'track', $6, 1, $7, 10, '{}', '{}', $8, $9, $10, $11)`,
      [
        a.workspaceId,
        randomUUID(),
        d,
        messageRowId,
        randomUUID(),
        o.url,
        new Date(T2.getTime() + o.s * 1000),
        o.outcome,
        o.status,
        o.errorKind ?? (o.status && o.status >= 300 ? "http" : null),
        o.errorKind ? `${o.errorKind} error` : o.status && o.status >= 300 ? `HTTP ${o.status}` : null,
      ],
    );
  }

  beforeAll(async () => {
    for (let s = 0; s < 3; s++) await attempt({ url: "https://e.com/a", status: 500, outcome: "retry", event: "Order Completed", s });
    await attempt({ url: "https://e.com/b", status: null, errorKind: "timeout", outcome: "failed", event: "Signed Up", s: 4 });
    await attempt({ url: "https://e.com/a", status: 200, outcome: "success", event: "Order Completed", s: 5 });
  });

  it("groups the window's failures by destination, URL and status or error kind, biggest first", async () => {
    const { groups } = await a.get(`/api/stats/failures?destinationId=${d}&${window}`);
    expect(groups).toMatchObject([
      { destinationId: d, url: "https://e.com/a", responseStatus: 500, errorKind: "http", attempts: 3, messages: 3, lastError: "HTTP 500" },
      { destinationId: d, url: "https://e.com/b", responseStatus: null, errorKind: "timeout", attempts: 1, lastError: "timeout error" },
    ]);
    expect((await b.get(`/api/stats/failures?${window}`)).groups).toEqual([]);
    expect((await a.request("GET", "/api/stats/failures?destinationId=nope")).status).toBe(422);
  });

  it("filters the log by exact status, error kind and event name", async () => {
    const list = async (q: string) => (await a.get(`/api/attempts?destinationId=${d}&${window}&${q}`)).attempts as { url: string }[];
    expect(await list("status=500")).toHaveLength(3);
    expect((await list("errorKind=timeout")).map((x) => x.url)).toEqual(["https://e.com/b"]);
    expect(await list("event=Order%20Completed")).toHaveLength(4);
    expect(await list("event=Signed%20Up&outcome=failed")).toHaveLength(1);
    expect(await list("event=Nothing")).toEqual([]);
    expect((await a.request("GET", "/api/attempts?status=99")).status).toBe(422);
  });
});
