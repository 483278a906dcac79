import "server-only";
import { heldKeys } from "../delivery/holds";
import { pool } from "../platform/db";
import { assertUuid, notFound } from "../platform/errors";
import type { DestinationHealthDto, EndpointHealth } from "./contract";
import { SAMPLE_PER_URL, WINDOW_HOURS, computeEndpointHealth, type RecentAttempt } from "./health";

/**
 * The attempts that judge an endpoint. A test-send's (its message's origin is 'test', replays
 * included) says how the endpoint took a test, not how it takes traffic; an interrupted round's
 * (docs/webhooks.md#interrupted-rounds) says a worker stopped, not the endpoint: endpoint health and
 * alerts leave both out (docs/alerts.md#when). One primary-key probe of messages per attempt read.
 */
export const JUDGED_ATTEMPT = `(a.error_kind IS NULL OR a.error_kind <> 'interrupted') AND NOT EXISTS (SELECT 1 FROM messages tm WHERE tm.id = a.message_row_id AND tm.origin = 'test')`;

/**
 * Recent attempts per destination, at most SAMPLE_PER_URL × 5 URLs of them, newest first: one bounded
 * scan of the attempts (workspace_id, destination_id, id DESC) index per destination, whatever the
 * volume. `destinationIds` null: every enabled destination (metrics).
 */
const RECENT = `
SELECT d.id AS destination_id, d.workspace_id, d.urls, coalesce(d.disabled_urls, '{}') AS disabled_urls, a.url, a.outcome, a.error_kind, a.error_text, a.response_status,
       to_char(a.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS started_at
  FROM destinations d
  LEFT JOIN LATERAL (
    SELECT url, outcome, error_kind, error_text, response_status, started_at
      FROM attempts a
     WHERE a.workspace_id = d.workspace_id AND a.destination_id = d.id
       AND a.started_at > now() - make_interval(hours => ${WINDOW_HOURS})
       AND ${JUDGED_ATTEMPT}
     ORDER BY a.id DESC
     LIMIT ${SAMPLE_PER_URL * 5}
  ) a ON true
 WHERE ($1::uuid IS NULL OR d.workspace_id = $1) AND ($2::uuid[] IS NULL OR d.id = ANY($2)) AND ($2::uuid[] IS NOT NULL OR d.enabled)`;

type Row = {
  destination_id: string;
  workspace_id: string;
  urls: string[];
  disabled_urls: string[];
  url: string | null;
  outcome: string | null;
  error_kind: string | null;
  error_text: string | null;
  response_status: number | null;
  started_at: string | null;
};

export type DestinationHealth = { destinationId: string; workspaceId: string; urls: EndpointHealth[]; disabledUrls: string[] };

async function healthOf(workspaceId: string | null, destinationIds: string[] | null): Promise<DestinationHealth[]> {
  const { rows } = await pool().query<Row>(RECENT, [workspaceId, destinationIds]);
  const byDestination = new Map<
    string,
    { workspaceId: string; urls: string[]; disabledUrls: string[]; attempts: Map<string, RecentAttempt[]> }
  >();
  for (const r of rows) {
    let d = byDestination.get(r.destination_id);
    if (!d) {
      d = { workspaceId: r.workspace_id, urls: r.urls, disabledUrls: r.disabled_urls, attempts: new Map() };
      byDestination.set(r.destination_id, d);
    }
    if (r.url === null) continue;
    const list = d.attempts.get(r.url) ?? [];
    list.push({
      outcome: r.outcome!,
      startedAt: r.started_at!,
      errorKind: r.error_kind,
      errorText: r.error_text,
      responseStatus: r.response_status,
    });
    d.attempts.set(r.url, list);
  }
  // Only the destination's current URLs: a URL removed from it is no longer its endpoint.
  return [...byDestination].map(([destinationId, d]) => ({
    destinationId,
    workspaceId: d.workspaceId,
    urls: d.urls.map((url) => computeEndpointHealth(url, d.attempts.get(url) ?? [])),
    disabledUrls: d.disabledUrls,
  }));
}

/** GET /api/destinations/:id/health: each URL's state, success rate, failures in a row and last error. */
export async function getDestinationHealth(opts: { workspaceId: string; id: string }): Promise<DestinationHealthDto> {
  assertUuid(opts.id, "Destination");
  const [[found], backlog, held] = await Promise.all([
    healthOf(opts.workspaceId, [opts.id]),
    backlogOf(opts.workspaceId, opts.id),
    heldKeys({ destinationId: opts.id }),
  ]);
  if (!found) throw notFound("Destination");
  return {
    destinationId: found.destinationId,
    urls: found.urls.map((u) => ({ ...u, disabled: found.disabledUrls.includes(u.url) })),
    backlog,
    heldKeys: held,
  };
}

/** Its pending deliveries: one range of the pending deliveries' index (deliveries_pending_idx: destination_id, created_at), oldest first. */
async function backlogOf(workspaceId: string, destinationId: string): Promise<DestinationHealthDto["backlog"]> {
  const { rows } = await pool().query<{ pending: number; oldest: string | null }>(
    `SELECT count(*)::int AS pending, to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS oldest
       FROM deliveries WHERE destination_id = $1 AND state = 'pending' AND workspace_id = $2`,
    [destinationId, workspaceId],
  );
  return { pending: rows[0].pending, oldestPendingAt: rows[0].oldest };
}

/** Every enabled destination's endpoint health (for /metrics). */
export const listEndpointHealth = () => healthOf(null, null);
