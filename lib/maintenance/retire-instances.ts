import "server-only";
import client from "prom-client";
import { withTransaction } from "../platform/db";

/**
 * Every process that ever ran keeps a metric_instances row, so that the counters /metrics sums never
 * go backwards when a process exits. Rows of processes silent for an hour are folded into one
 * `retired` row (their counts summed into it), which keeps the table as small as the live fleet.
 */
export const RETIRED_ID = "00000000-0000-0000-0000-000000000000";
const SILENT_FOR = "1 hour";

type Snapshot = client.MetricObjectWithValues<client.MetricValue<string>>[];

export async function retireSilentInstances(): Promise<number> {
  return withTransaction(async (c) => {
    const { rows } = await c.query<{ id: string; snapshot: Snapshot }>(
      `SELECT id, snapshot FROM metric_instances
        WHERE (role <> 'retired' AND seen_at < now() - interval '${SILENT_FOR}') OR id = $1
        ORDER BY id FOR UPDATE`,
      [RETIRED_ID],
    );
    const silent = rows.filter((r) => r.id !== RETIRED_ID);
    if (silent.length === 0) return 0;
    const snapshots = rows.map((r) => r.snapshot).filter((s) => Array.isArray(s) && s.length > 0);
    const merged = snapshots.length ? await client.AggregatorRegistry.aggregate(snapshots).getMetricsAsJSON() : [];
    await c.query(
      `INSERT INTO metric_instances (id, role, hostname, pid, started_at, seen_at, snapshot)
       VALUES ($1, 'retired', '', 0, now(), now(), $2::jsonb)
       ON CONFLICT (id) DO UPDATE SET snapshot = EXCLUDED.snapshot, seen_at = now()`,
      [RETIRED_ID, JSON.stringify(merged)],
    );
    await c.query("DELETE FROM metric_instances WHERE id = ANY($1::uuid[])", [silent.map((r) => r.id)]);
    return silent.length;
  });
}
