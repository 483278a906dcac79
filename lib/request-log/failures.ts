import "server-only";
import { pool } from "../platform/db";
import type { FailureGroupDto, FailureGroupsQuery } from "./contract";

type Row = {
  destination_id: string;
  destination_name: string | null;
  url: string;
  response_status: number | null;
  error_kind: string | null;
  attempts: number;
  messages: number;
  failed: number;
  retrying: number;
  delivered: number;
  last_at: Date;
  last_error: string | null;
};

/** How many groups the overview shows: the biggest reasons, not a second log. */
const LIMIT = 20;

/**
 * "What failed and why": the window's failed and retried attempts grouped by destination, URL and
 * the status the endpoint answered (or the kind of error without one), biggest first. The window
 * bounds the scan through the attempts(started_at) BRIN index, as the other figures do. Each group's
 * messages are counted by how they stand now (their chain's latest delivery, one probe of
 * deliveries(message_row_id, destination_id, replay_number) each), as a replay of the group chooses them
 * (lib/request-log/replay.ts): the failed ones are what it sends.
 */
export async function listFailureGroups(opts: { workspaceId: string } & FailureGroupsQuery): Promise<FailureGroupDto[]> {
  const { rows } = await pool().query<Row>(
    `WITH per_message AS (
       SELECT a.destination_id, a.url, a.response_status, a.error_kind, a.message_row_id,
              count(*)::int AS attempts, max(a.started_at) AS last_at, max(a.id) AS last_id,
              (array_agg(a.error_text ORDER BY a.id DESC))[1] AS last_error
         FROM attempts a
        WHERE a.workspace_id = $1 AND ($2::uuid IS NULL OR a.destination_id = $2)
          AND a.started_at >= $3 AND a.started_at < $4 AND a.outcome <> 'success'
        GROUP BY a.destination_id, a.url, a.response_status, a.error_kind, a.message_row_id
     )
     SELECT p.destination_id, d.name AS destination_name, p.url, p.response_status, p.error_kind,
            sum(p.attempts)::int AS attempts, count(*)::int AS messages,
            (count(*) FILTER (WHERE l.state = 'failed'))::int AS failed,
            (count(*) FILTER (WHERE l.state = 'pending'))::int AS retrying,
            (count(*) FILTER (WHERE l.state = 'delivered'))::int AS delivered,
            max(p.last_at) AS last_at, (array_agg(p.last_error ORDER BY p.last_id DESC))[1] AS last_error
       FROM per_message p
       LEFT JOIN destinations d ON d.id = p.destination_id
       LEFT JOIN LATERAL (
         SELECT r.state FROM deliveries r WHERE r.message_row_id = p.message_row_id AND r.destination_id = p.destination_id
          ORDER BY r.replay_number DESC LIMIT 1
       ) l ON true
      GROUP BY p.destination_id, d.name, p.url, p.response_status, p.error_kind
      ORDER BY attempts DESC, last_at DESC
      LIMIT ${LIMIT}`,
    [opts.workspaceId, opts.destinationId ?? null, opts.from, opts.to],
  );
  return rows.map((r) => ({
    destinationId: r.destination_id,
    destinationName: r.destination_name,
    url: r.url,
    responseStatus: r.response_status,
    errorKind: r.error_kind,
    attempts: r.attempts,
    messages: r.messages,
    failed: r.failed,
    retrying: r.retrying,
    delivered: r.delivered,
    lastAt: r.last_at.toISOString(),
    lastError: r.last_error,
  }));
}
