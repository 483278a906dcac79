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
  last_at: Date;
  last_error: string | null;
};

/** How many groups the overview shows: the biggest reasons, not a second log. */
const LIMIT = 20;

/**
 * "What failed and why": the window's failed and retried attempts grouped by destination, URL and
 * the status the endpoint answered (or the kind of error without one), biggest first. The window
 * bounds the scan through the attempts(started_at) BRIN index, as the other figures do.
 */
export async function listFailureGroups(opts: { workspaceId: string } & FailureGroupsQuery): Promise<FailureGroupDto[]> {
  const { rows } = await pool().query<Row>(
    `SELECT a.destination_id, d.name AS destination_name, a.url, a.response_status, a.error_kind,
            count(*)::int AS attempts, count(DISTINCT a.message_row_id)::int AS messages, max(a.started_at) AS last_at,
            (array_agg(a.error_text ORDER BY a.id DESC))[1] AS last_error
       FROM attempts a LEFT JOIN destinations d ON d.id = a.destination_id
      WHERE a.workspace_id = $1 AND ($2::uuid IS NULL OR a.destination_id = $2)
        AND a.started_at >= $3 AND a.started_at < $4 AND a.outcome <> 'success'
      GROUP BY a.destination_id, d.name, a.url, a.response_status, a.error_kind
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
    lastAt: r.last_at.toISOString(),
    lastError: r.last_error,
  }));
}
