import "server-only";
import { pool } from "../platform/db";
import type { DeliveryStatsDto, DeliveryStatsQuery, DestinationStatsDto, DestinationStatsQuery, EventStats, StatsRow } from "./contract";

type Row = { total: number; success: number; retry: number; failed: number; p: (number | null)[] | null };

const AGGREGATES = `
  count(*)::int AS total,
  count(*) FILTER (WHERE outcome = 'success')::int AS success,
  count(*) FILTER (WHERE outcome = 'retry')::int AS retry,
  count(*) FILTER (WHERE outcome = 'failed')::int AS failed,
  percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms) AS p`;

// Served by the attempts(started_at) BRIN index: the window bounds the scan, workspace and destination filter it.
const WINDOW = `workspace_id = $1 AND ($2::uuid IS NULL OR destination_id = $2) AND started_at >= $3 AND started_at < $4`;

const round = (v: number | null | undefined) => (v == null ? null : Math.round(v * 10) / 10);

function toStats(r: Row | undefined): StatsRow {
  const total = r?.total ?? 0;
  const success = r?.success ?? 0;
  return {
    total,
    success,
    retry: r?.retry ?? 0,
    failed: r?.failed ?? 0,
    successRate: total ? success / total : null,
    p50: round(r?.p?.[0]),
    p95: round(r?.p?.[1]),
    p99: round(r?.p?.[2]),
  };
}

type EventRow = { destination_id?: string; total: number; delivered: number; pending: number; failed: number; retried: number };

/**
 * Events of a window: each (message, destination) with an attempt in it (the same window scan as the
 * attempt figures), counted once by the state of its latest delivery now, so a failed delivery
 * replayed into success is one delivered event. The latest delivery is found through the
 * deliveries (message_row_id, destination_id, replay_number) unique index. Attempts without a
 * delivery (a test-send, or deliveries pruned since) are attempts, not events.
 */
const EVENTS = (byDestination: boolean) => `
  WITH d AS (
    SELECT message_row_id, destination_id, count(*) AS n FROM attempts WHERE ${WINDOW}
     GROUP BY message_row_id, destination_id
  )
  SELECT ${byDestination ? "d.destination_id," : ""}
         count(x.state)::int AS total,
         count(*) FILTER (WHERE x.state = 'delivered')::int AS delivered,
         count(*) FILTER (WHERE x.state = 'pending')::int AS pending,
         count(*) FILTER (WHERE x.state = 'failed')::int AS failed,
         count(*) FILTER (WHERE x.state IS NOT NULL AND d.n > 1)::int AS retried
    FROM d LEFT JOIN LATERAL (
      SELECT state FROM deliveries
       WHERE message_row_id = d.message_row_id AND destination_id = d.destination_id
       ORDER BY replay_number DESC LIMIT 1
    ) x ON true
   ${byDestination ? "GROUP BY d.destination_id" : ""}`;

const toEvents = (r: EventRow | undefined): EventStats => ({
  total: r?.total ?? 0,
  delivered: r?.delivered ?? 0,
  pending: r?.pending ?? 0,
  failed: r?.failed ?? 0,
  retried: r?.retried ?? 0,
});

/** Attempts of a window by outcome, success rate and latency percentiles, overall and per time bucket. */
export async function getDeliveryStats(opts: { workspaceId: string } & DeliveryStatsQuery): Promise<DeliveryStatsDto> {
  const { workspaceId, destinationId, from, to, bucketSeconds } = opts;
  const args = [workspaceId, destinationId ?? null, from, to];
  const interval = `${bucketSeconds} seconds`;
  const [totals, events, series] = await Promise.all([
    pool().query<Row>(`SELECT ${AGGREGATES} FROM attempts WHERE ${WINDOW}`, args),
    pool().query<EventRow>(EVENTS(false), args),
    // Buckets are aligned on `from`; generate_series fills the empty ones so charts stay continuous.
    pool().query<Row & { start: Date }>(
      `WITH b AS (
         SELECT date_bin($5::interval, started_at, $3) AS start, ${AGGREGATES}
           FROM attempts WHERE ${WINDOW} GROUP BY 1
       )
       SELECT g.start, b.total, b.success, b.retry, b.failed, b.p
         FROM generate_series($3::timestamptz, $4::timestamptz - interval '1 millisecond', $5::interval) AS g(start)
         LEFT JOIN b ON b.start = g.start
        ORDER BY g.start`,
      [...args, interval],
    ),
  ]);
  return {
    destinationId: destinationId ?? null,
    from: from.toISOString(),
    to: to.toISOString(),
    bucketSeconds,
    totals: toStats(totals.rows[0]),
    events: toEvents(events.rows[0]),
    series: series.rows.map((r) => ({ start: r.start.toISOString(), ...toStats(r.total == null ? undefined : r) })),
  };
}

/** Per destination: attempt volume and success rate in a window (the destinations list shows the last 24 h). */
export async function getDestinationStats(opts: { workspaceId: string } & DestinationStatsQuery): Promise<DestinationStatsDto[]> {
  const args = [opts.workspaceId, null, opts.from, opts.to];
  const [{ rows }, events] = await Promise.all([
    pool().query<Row & { destination_id: string }>(
      `SELECT destination_id, ${AGGREGATES} FROM attempts WHERE ${WINDOW} GROUP BY destination_id`,
      args,
    ),
    pool().query<EventRow>(EVENTS(true), args),
  ]);
  const eventsOf = new Map(events.rows.map((e) => [e.destination_id, e]));
  return rows.map((r) => {
    const { p50: _p50, p95: _p95, p99: _p99, ...rest } = toStats(r);
    return { destinationId: r.destination_id, ...rest, events: toEvents(eventsOf.get(r.destination_id)) };
  });
}
