import "server-only";
import { pool } from "../platform/db";
import type { SourceHealthDto } from "./contract";

/**
 * A source's health (docs/dashboard.md#sources): whether its recent messages are being rejected,
 * which no real client reports (they only read the status of a batch, which stays 200).
 *
 * - The sample: the source's most recent calls within the last hour, at most SAMPLE of them —
 *   accepted messages (messages) and rejected ones (source_calls) merged by arrival time.
 * - `rejecting` when at least REJECTING_SHARE of the sample was rejected; `idle` without recent
 *   calls; `disabled` when the source is; `healthy` otherwise.
 * - The counter: rejected messages in the last 24 hours by reason category (rejection_counts, one row
 *   per hour and category), exact however many there were.
 */
export const SAMPLE = 200;
export const WINDOW_MINUTES = 60;
export const REJECTING_SHARE = 0.1;

export type HealthSample = { enabled: boolean; calls: number; rejected: number };

/** Pure: the state a sample means. */
export function sourceHealthState(s: HealthSample): SourceHealthDto["state"] {
  if (!s.enabled) return "disabled";
  if (s.calls === 0) return "idle";
  return s.rejected > 0 && s.rejected / s.calls >= REJECTING_SHARE ? "rejecting" : "healthy";
}

// Two bounded index scans per source: messages (source_id, received_at) and source_calls (source_id, id DESC).
const SAMPLE_SQL = `
  SELECT s.id, s.enabled, coalesce(x.calls, 0)::int AS calls, coalesce(x.rejected, 0)::int AS rejected
  FROM sources s
  LEFT JOIN LATERAL (
    SELECT count(*) AS calls, count(*) FILTER (WHERE NOT r.ok) AS rejected FROM (
      (SELECT m.received_at AS at, true AS ok FROM messages m
        WHERE m.source_id = s.id AND m.received_at > now() - make_interval(mins => $3)
        ORDER BY m.received_at DESC LIMIT $4)
      UNION ALL
      (SELECT c.received_at, false FROM source_calls c
        WHERE c.source_id = s.id AND NOT c.accepted AND c.received_at > now() - make_interval(mins => $3)
        ORDER BY c.id DESC LIMIT $4)
      ORDER BY at DESC LIMIT $4
    ) r
  ) x ON true
  WHERE s.workspace_id = $1 AND s.id = ANY($2::uuid[])`;

// The current hour and the 23 before it: primary key (source_id, hour, category).
const COUNTS_SQL = `
  SELECT source_id, category, sum(count)::int AS n FROM rejection_counts
  WHERE source_id = ANY($1::uuid[]) AND hour >= date_trunc('hour', now()) - interval '23 hours'
  GROUP BY source_id, category`;

/** The health of some of a workspace's sources, by id (ids of other workspaces are left out). */
export async function sourceHealthOf(workspaceId: string, sourceIds: string[]): Promise<Map<string, SourceHealthDto>> {
  if (sourceIds.length === 0) return new Map();
  const [samples, counts] = await Promise.all([
    pool().query<{ id: string; enabled: boolean; calls: number; rejected: number }>(SAMPLE_SQL, [
      workspaceId,
      sourceIds,
      WINDOW_MINUTES,
      SAMPLE,
    ]),
    pool().query<{ source_id: string; category: string; n: number }>(COUNTS_SQL, [sourceIds]),
  ]);
  const byReason = new Map<string, Record<string, number>>();
  for (const c of counts.rows) byReason.set(c.source_id, { ...byReason.get(c.source_id), [c.category]: c.n });
  const out = new Map<string, SourceHealthDto>();
  for (const s of samples.rows) {
    const reasons = byReason.get(s.id) ?? {};
    out.set(s.id, {
      state: sourceHealthState(s),
      recent: { calls: s.calls, rejected: s.rejected, windowMinutes: WINDOW_MINUTES },
      rejectedLast24h: { total: Object.values(reasons).reduce((a, b) => a + b, 0), byReason: reasons },
    });
  }
  return out;
}
