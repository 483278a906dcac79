/**
 * `npm run bench:log` — the request log at 1,000,000 attempts (BENCH_ROWS=10000000 for 10 M).
 *
 * A fresh database gets 1M attempts across 5 destinations over the last 7 days (bulk-loaded by
 * bench/lib/bulk-load.ts loadAttempts, as bench:growth's) and a delivery per attempt (loadDeliveries),
 * then the production app answers GET /api/attempts (the flat log) and GET /api/deliveries (the log
 * by message) 20 times per case:
 *   first page     — no filter, newest 50
 *   filtered page  — one destination + outcome failed (by message: status failed) + a one-day window two days back
 *   messageId page — one message's attempt (the messageId filter)
 *   userId page    — one user's attempts over the week (the userId filter)
 *   page 3         — the third page of the unfiltered log, by its cursor (by message only)
 * With BENCH_EXPLAIN=1, the EXPLAIN (ANALYZE, BUFFERS) of each page of the log by message
 * (deliveryPageQuery, the statement the API runs) is printed first;
 * and we print the median server time (HTTP on 127.0.0.1, so it is the server's time plus a
 * loopback hop), next to GET /api/sources (an authenticated call that reads almost nothing) measured
 * in the same run as the floor,
 * and the ratio to the 150 ms goal.
 */
import pg from "pg";
import { randomUUID } from "node:crypto";
import { buildIfNeeded } from "../scripts/lib/build";
import { createTestDatabase } from "../test/harness/pg";
import { attemptsOfUser, loadAttempts, loadDeliveries } from "./lib/bulk-load";
import { ADMIN_TOKEN, startApp } from "../test/harness/stack";
import { costRatio, median, printResult, runBench } from "./lib/result";
import { deliveryListQuerySchema } from "../lib/request-log/contract";
import { deliveryPageQuery } from "../lib/request-log/deliveries";

async function explain(url: string, workspaceId: string, name: string, query: Record<string, string>) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const q = deliveryPageQuery(workspaceId, deliveryListQuerySchema.parse(query));
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q.text}`, q.values);
    console.log(`\n${name}:`);
    for (const r of rows) console.log(`    ${r["QUERY PLAN"]}`);
  } finally {
    await db.end();
  }
}

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = 20;
const GOAL_MS = 150;
const DAY = 86_400_000;

async function seed(url: string): Promise<{ workspaceId: string; destinations: string[] }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const workspaceId = randomUUID();
    const destinations = Array.from({ length: 5 }, () => randomUUID());
    await db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'bench')", [workspaceId]);
    for (const [i, id] of destinations.entries()) {
      await db.query("INSERT INTO destinations (id, workspace_id, name, urls, updated_at) VALUES ($1, $2, $3, $4, now())", [
        id,
        workspaceId,
        `Destination ${i + 1}`,
        [`https://hooks${i + 1}.example.com/eventrail`],
      ]);
    }
    await loadAttempts(db, { workspaceId, destinations, total: ROWS, days: 7, log: (m) => console.log(`seeded ${m}`) });
    // Messages are not loaded: the log's rows join them by primary key and show none (as once erased by retention).
    await loadDeliveries(db, { workspaceId, total: ROWS, days: 7, log: (m) => console.log(`seeded ${m}`) });
    return { workspaceId, destinations };
  } finally {
    await db.end();
  }
}

async function time(url: string, headers: Record<string, string>, check: (body: any) => void): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.json();
    const ms = performance.now() - t;
    if (!res.ok) throw new Error(`${url} → ${res.status} ${JSON.stringify(body)}`);
    check(body);
    if (i >= 3) out.push(ms); // the first three warm the app and the cache
  }
  return out;
}

async function main() {
  buildIfNeeded((m) => console.log(`[bench] ${m}`));
  const db = await createTestDatabase();
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  try {
    const { workspaceId, destinations } = await seed(db.url);
    app = await startApp(db.url, { LOG_LEVEL: "warn" });
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, "x-eventrail-workspace": workspaceId };
    const now = Date.now();
    const filter = new URLSearchParams({
      destinationId: destinations[2],
      outcome: "failed",
      from: new Date(now - 3 * DAY).toISOString(),
      to: new Date(now - 2 * DAY).toISOString(),
      limit: "50",
    });

    const floor = median(await time(`${app.url}/api/sources`, headers, () => {}));
    // A user's attempts: one row in 50,000, spread over the week (20 at 1M rows).
    const userAttempts = Math.min(50, attemptsOfUser(ROWS, 123));
    const byMessage = new URLSearchParams({ ...Object.fromEntries(filter), state: "failed" });
    byMessage.delete("outcome");
    const list = (b: any) => b.attempts ?? b.deliveries;
    // The third page of the log by message: its cursor, read once before timing.
    let cursor: string | null = null;
    for (let i = 0; i < 2; i++) {
      const res: Response = await fetch(`${app.url}/api/deliveries?limit=50${cursor ? `&cursor=${cursor}` : ""}`, { headers });
      cursor = (await res.json()).nextCursor;
    }
    if (process.env.BENCH_EXPLAIN === "1") {
      await explain(db.url, workspaceId, "by message: first page", { limit: "50" });
      await explain(db.url, workspaceId, "by message: page 3", { limit: "50", cursor: cursor! });
      await explain(db.url, workspaceId, "by message: filtered page", Object.fromEntries(byMessage));
      await explain(db.url, workspaceId, "by message: messageId page", { messageId: `msg-${Math.floor(ROWS / 2)}`, limit: "50" });
    }
    const cases = [
      { name: "first page", key: "first", url: `${app.url}/api/attempts?limit=50`, expect: 50 },
      { name: "filtered page (destination + outcome + time range)", key: "filtered", url: `${app.url}/api/attempts?${filter}`, expect: 50 },
      // The day-keyed lookups (lib/request-log/attempt-days.ts): one descent per day the log holds.
      {
        name: "messageId page",
        key: "message_id",
        url: `${app.url}/api/attempts?messageId=msg-${Math.floor(ROWS / 2)}&limit=50`,
        expect: 1,
      },
      { name: "userId page", key: "user_id", url: `${app.url}/api/attempts?userId=user-123&limit=50`, expect: userAttempts },
      { name: "by message: first page", key: "grouped_first", url: `${app.url}/api/deliveries?limit=50`, expect: 50 },
      { name: "by message: page 3", key: "grouped_page3", url: `${app.url}/api/deliveries?limit=50&cursor=${cursor}`, expect: 50 },
      {
        name: "by message: filtered page (destination + status failed + time range)",
        key: "grouped_filtered",
        url: `${app.url}/api/deliveries?${byMessage}`,
        expect: 50,
      },
      // No messages rows are loaded: the messageId lookup goes through the attempts' index, as for a test-send's.
      {
        name: "by message: messageId page",
        key: "grouped_message_id",
        url: `${app.url}/api/deliveries?messageId=msg-${Math.floor(ROWS / 2)}&limit=50`,
        expect: 1,
      },
    ];
    console.log(`\nGET /api/sources (floor of an authenticated API call): ${floor.toFixed(1)} ms`);
    const pages: Record<string, number> = {};
    for (const c of cases) {
      const ms = median(
        await time(c.url, headers, (b) => {
          if (list(b).length !== c.expect) throw new Error(`${c.name}: expected ${c.expect} rows, got ${list(b).length}`);
        }),
      );
      console.log(`${c.name}: median ${ms.toFixed(1)} ms of ${RUNS} · goal ≤ ${GOAL_MS} ms · ${(ms / floor).toFixed(1)}× the floor`);
      pages[`${c.key}_ms`] = ms;
    }
    // The ceiling is the floor of any authenticated call; the ratio is that of the slowest page.
    printResult("log", costRatio(Math.max(...Object.values(pages)), floor), { ...pages, floor_ms: floor, goal_ms: GOAL_MS });
  } finally {
    await app?.stop();
    await db.drop();
  }
}

runBench(main);
