/**
 * `npm run bench:log` — the request log at 1,000,000 attempts.
 *
 * A fresh database gets 1M attempts across 5 destinations over the last 7 days (bulk-loaded by
 * bench/lib/bulk-load.ts loadAttempts, as bench:growth's), then the production app answers
 * GET /api/attempts 20 times per case:
 *   first page     — no filter, newest 50
 *   filtered page  — one destination + outcome failed + a one-day window two days back
 *   messageId page — one message's attempt (the messageId filter)
 *   userId page    — one user's attempts over the week (the userId filter)
 * and we print the median server time (HTTP on 127.0.0.1, so it is the server's time plus a
 * loopback hop), next to GET /api/sources (an authenticated call that reads almost nothing) measured
 * in the same run as the floor,
 * and the ratio to the 150 ms goal.
 */
import pg from "pg";
import { randomUUID } from "node:crypto";
import { buildIfNeeded } from "../scripts/lib/build";
import { createTestDatabase } from "../test/harness/pg";
import { attemptsOfUser, loadAttempts } from "./lib/bulk-load";
import { ADMIN_TOKEN, startApp } from "../test/harness/stack";
import { costRatio, median, printResult, runBench } from "./lib/result";

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
    ];
    console.log(`\nGET /api/sources (floor of an authenticated API call): ${floor.toFixed(1)} ms`);
    const pages: Record<string, number> = {};
    for (const c of cases) {
      const ms = median(
        await time(c.url, headers, (b) => {
          if (b.attempts.length !== c.expect) throw new Error(`${c.name}: expected ${c.expect} attempts, got ${b.attempts.length}`);
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
