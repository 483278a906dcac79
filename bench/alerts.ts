/**
 * npm run bench:alerts — what one endpoint alert evaluation (docs/alerts.md#when) costs, against a
 * ceiling measured in the same run: one sequential read of every attempt in the evaluation's window
 * (disable-after days + 1 hour), which is what a naive evaluation would scan each minute.
 *
 * 20 destinations of 2 URLs each get N attempts (default 300,000; BENCH_ROWS) spread over the last
 * 5 days: most URLs healthy, 4 failing throughout (the slow case: their failures since the last
 * success are scanned), then the evaluation runs 5 times (the worker runs it once a minute).
 */
import { evaluateEndpointAlerts } from "../lib/alerts/evaluate";
import { insertDestination, insertWorkspace } from "../test/harness/delivery/direct";
import { costRatio, median, printResult, runBench } from "./lib/result";
import { benchDatabase } from "./lib/database";

const ROWS = Number(process.env.BENCH_ROWS ?? 300_000);
const DESTINATIONS = 20;
const FAILING = 4;

async function main() {
  const { url, db, close } = await benchDatabase();
  try {
    const workspaceId = await insertWorkspace(url);
    const urls: { destinationId: string; url: string; failing: boolean }[] = [];
    for (let i = 0; i < DESTINATIONS; i++) {
      const pair = [`https://hooks.example.com/d${i}/a`, `https://hooks.example.com/d${i}/b`];
      const destinationId = await insertDestination(url, { workspaceId, urls: pair, mode: "every" });
      for (const [j, url] of pair.entries()) urls.push({ destinationId, url, failing: j === 1 && i < FAILING });
    }
    const per = Math.floor(ROWS / urls.length);
    for (const u of urls) {
      // Each attempt's message exists, as in production: the evaluation probes it to leave test-sends out.
      await db.query(
        `WITH m AS (
           INSERT INTO messages (id, workspace_id, message_id, type, timestamp)
           SELECT gen_random_uuid(), $1, 'm-' || $3 || '-' || g, 'track', now() FROM generate_series(1, $4::int) g
           RETURNING id, message_id
         )
         INSERT INTO attempts (workspace_id, delivery_id, destination_id, message_row_id, message_id, type, url, attempt_number, started_at, duration_ms,
                               request_headers, request_body, response_status, response_body, outcome, error_kind)
         SELECT $1, gen_random_uuid(), $2, m.id, 'm-' || g, 'track', $3, 1,
                now() - interval '5 days' + (g::float8 / $4) * interval '5 days', 12, '{}', '{"type":"track"}',
                CASE WHEN $5 THEN 500 ELSE 200 END, 'x', CASE WHEN $5 THEN 'retry' ELSE 'success' END, CASE WHEN $5 THEN 'http' END
           FROM generate_series(1, $4::int) g JOIN m ON m.message_id = 'm-' || $3 || '-' || g`,
        [workspaceId, u.destinationId, u.url, per, u.failing],
      );
    }
    await db.query("VACUUM ANALYZE attempts");
    await db.query("VACUUM ANALYZE messages");
    console.log(`[bench:alerts] ${per * urls.length} attempts over 5 days, ${urls.length} URLs (${FAILING} failing throughout)`);

    await evaluateEndpointAlerts({ smtpUrl: null }); // warm: opens the failing URLs' alerts once
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await evaluateEndpointAlerts({ smtpUrl: null });
      runs.push(performance.now() - t);
    }
    const scans: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await db.query(
        "SELECT count(*), count(*) FILTER (WHERE outcome = 'success') FROM attempts WHERE started_at > now() - interval '5 days 1 hour'",
      );
      scans.push(performance.now() - t);
    }
    const evalMs = median(runs);
    const scanMs = median(scans);
    console.log(`  evaluation (median of 5): ${evalMs.toFixed(1)} ms for ${urls.length} URLs`);
    console.log(`  ceiling (one scan of the window, median of 3): ${scanMs.toFixed(1)} ms`);
    printResult("alerts", costRatio(evalMs, scanMs), { evaluation_ms: evalMs, scan_ms: scanMs, attempts: per * urls.length });
  } finally {
    await close();
  }
}

runBench(main);
