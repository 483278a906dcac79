import "server-only";
import client from "prom-client";
import { pool } from "../platform/db";
import { listEndpointHealth } from "../destinations/endpoint-health";
import { heldTotals } from "../delivery/holds";
import { QUEUES } from "../platform/queue";
import { PUSH_INTERVAL_MS } from "./push";

/**
 * GET /metrics, computed at scrape time so that any web process reports the whole installation:
 * - counters and the attempt histogram: the sum of every process's pushed snapshot (push.ts),
 *   including processes that have exited (their last push stays, so counters never go backwards);
 * - queue depth: pg-boss's own per-queue counts (pgboss.queue, kept by its monitor), and the age of
 *   the oldest job waiting to run (one row off pg-boss's fetch index per queue);
 * - workers alive: worker processes whose push (their heartbeat) is recent;
 * - endpoint health per destination URL, from each destination's recent attempts (bounded scans).
 * Every query is cheap and independent of data volume; nothing here is kept in this process.
 */
export const WORKER_ALIVE_MS = PUSH_INTERVAL_MS * 4;

const STATES = ["healthy", "degraded", "unhealthy", "unknown"] as const;

/** A URL as a label: origin and path only, since query strings sometimes carry credentials. */
export function urlLabel(url: string): string {
  try {
    const u = new URL(url);
    return u.origin + u.pathname;
  } catch {
    return "invalid";
  }
}

/** Before any worker has started, pg-boss's tables do not exist yet: no queue figures, not an error. */
const noRows = { rows: [] as never[] };

async function countersFromSnapshots(): Promise<client.Registry> {
  const { rows } = await pool().query<{ snapshot: client.MetricObjectWithValues<client.MetricValue<string>>[] }>(
    "SELECT snapshot FROM metric_instances",
  );
  const snapshots = rows.map((r) => r.snapshot).filter((s) => Array.isArray(s) && s.length > 0);
  return snapshots.length ? client.AggregatorRegistry.aggregate(snapshots) : new client.Registry();
}

async function gauges(): Promise<client.Registry> {
  const registry = new client.Registry();
  const queueJobs = new client.Gauge({
    name: "eventrail_queue_jobs",
    help: "Jobs per queue and state (queued: ready to run; deferred: scheduled later; active: running)",
    labelNames: ["queue", "state"],
    registers: [registry],
  });
  const oldest = new client.Gauge({
    name: "eventrail_queue_oldest_waiting_seconds",
    help: "How long the oldest job that is due has been waiting to run, per queue (0 when none)",
    labelNames: ["queue"],
    registers: [registry],
  });
  const workers = new client.Gauge({
    name: "eventrail_workers",
    help: "Worker processes alive (pushed a heartbeat recently)",
    registers: [registry],
  });
  const pending = new client.Gauge({
    name: "eventrail_deliveries_pending",
    help: "Deliveries not yet delivered or failed, per destination",
    labelNames: ["destination"],
    registers: [registry],
  });
  const oldestPending = new client.Gauge({
    name: "eventrail_deliveries_oldest_pending_seconds",
    help: "Age of the oldest delivery not yet delivered or failed, per destination: a backlog that grows (a rate limit, a slow endpoint) shows here",
    labelNames: ["destination"],
    registers: [registry],
  });
  const held = new client.Gauge({
    name: "eventrail_deliveries_held",
    help: "Deliveries held behind an earlier pending one of their user, per destination (docs/webhooks.md#ordering)",
    labelNames: ["destination"],
    registers: [registry],
  });
  const keysHeld = new client.Gauge({
    name: "eventrail_keys_held",
    help: "Users (order keys) with held deliveries, per destination (docs/webhooks.md#ordering)",
    labelNames: ["destination"],
    registers: [registry],
  });
  const health = new client.Gauge({
    name: "eventrail_endpoint_state",
    help: "Endpoint health per destination URL: 1 for its current state",
    labelNames: ["destination", "url", "state"],
    registers: [registry],
  });
  const failures = new client.Gauge({
    name: "eventrail_endpoint_consecutive_failures",
    help: "Failed attempts since the URL's last success (within the recent sample)",
    labelNames: ["destination", "url"],
    registers: [registry],
  });
  const rate = new client.Gauge({
    name: "eventrail_endpoint_success_ratio",
    help: "Share of the URL's recent attempts that succeeded",
    labelNames: ["destination", "url"],
    registers: [registry],
  });

  const names = Object.values(QUEUES).map((q) => q.name);
  const [queues, waits, alive, pendingRows, endpoints, heldRows] = await Promise.all([
    pool()
      .query<{ name: string; queued: number; deferred: number; active: number }>(
        "SELECT name, queued_count AS queued, deferred_count AS deferred, active_count AS active FROM pgboss.queue WHERE name = ANY($1)",
        [names],
      )
      .catch(() => noRows),
    pool()
      .query<{ name: string; seconds: number }>(
        `SELECT q.name, COALESCE((
         SELECT EXTRACT(EPOCH FROM now() - GREATEST(j.created_on, j.start_after))::float8
           FROM pgboss.job j
          WHERE j.name = q.name AND j.state < 'active' AND NOT j.blocked AND j.start_after <= now()
          ORDER BY j.priority DESC, j.created_on LIMIT 1), 0) AS seconds
         FROM unnest($1::text[]) AS q(name)`,
        [names],
      )
      .catch(() => noRows),
    pool().query<{ n: number }>(
      "SELECT count(*)::int AS n FROM metric_instances WHERE role = 'worker' AND seen_at > now() - make_interval(secs => $1)",
      [WORKER_ALIVE_MS / 1000],
    ),
    pool().query<{ destination_id: string; n: number; seconds: number }>(
      `SELECT destination_id, count(*)::int AS n, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS seconds
         FROM deliveries WHERE state = 'pending' GROUP BY destination_id`,
    ),
    listEndpointHealth(),
    heldTotals(),
  ]);
  for (const h of heldRows) {
    held.set({ destination: h.destinationId }, h.held);
    keysHeld.set({ destination: h.destinationId }, h.keys);
  }
  for (const q of queues.rows) {
    queueJobs.set({ queue: q.name, state: "queued" }, q.queued);
    queueJobs.set({ queue: q.name, state: "deferred" }, q.deferred);
    queueJobs.set({ queue: q.name, state: "active" }, q.active);
  }
  for (const w of waits.rows) oldest.set({ queue: w.name }, Math.max(0, w.seconds));
  workers.set(alive.rows[0].n);
  for (const p of pendingRows.rows) {
    pending.set({ destination: p.destination_id }, p.n);
    oldestPending.set({ destination: p.destination_id }, Math.max(0, p.seconds));
  }
  for (const d of endpoints) {
    for (const h of d.urls) {
      const u = { ...h, url: urlLabel(h.url) };
      for (const s of STATES) health.set({ destination: d.destinationId, url: u.url, state: s }, u.state === s ? 1 : 0);
      failures.set({ destination: d.destinationId, url: u.url }, u.consecutiveFailures);
      if (u.successRate !== null) rate.set({ destination: d.destinationId, url: u.url }, u.successRate);
    }
  }
  return registry;
}

/** The Prometheus text exposition of the whole installation. */
export async function collectMetrics(): Promise<{ contentType: string; text: string }> {
  const merged = client.Registry.merge([await countersFromSnapshots(), await gauges()]);
  return { contentType: merged.contentType, text: await merged.metrics() };
}
