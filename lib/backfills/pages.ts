import "server-only";
import type pg from "pg";
import type { DestinationFilter } from "../destinations/contract";
import { filterAllows } from "../routing/destination-filter";
import { integrationsAllow } from "../routing/route-message";

/**
 * A backfill's pages (docs/routing.md#backfill): the stored calls of its sources received in its
 * window, one source after another, each in (received_at, id) order through
 * messages(source_id, received_at), a bounded page at a time from a cursor. Each call is routed as
 * ingest routes it (integrations, then the destination's filter: types, event names, conditions,
 * sampling; lib/routing/route-message.ts); the drop and allow lists and the mapping apply later, when
 * the engine builds the request, as for every delivery. The dry run and the run read the same pages,
 * so the count a dry run answers is the count a run started then queues.
 */

/** Where the next page starts: the index of the source in the backfill's (sorted) source ids, and the last call read of it. */
export type Cursor = { source: number; at: string; id: string };

/** What a page reads: the backfill's scope and the destination's filter as it is now. */
export type PageScope = {
  workspaceId: string;
  destinationId: string;
  /** sorted, so that a cursor's source index means the same source on every run */
  sourceIds: string[];
  from: Date;
  to: Date;
  /** calls received before this are past message retention: never read (lib/maintenance/retention.ts deletes them) */
  retainedFrom: Date;
  resend: boolean;
  filter: DestinationFilter | null;
};

export type Page = {
  /** the row ids of the calls on the page that the destination takes */
  messageRowIds: string[];
  /** rows read (passing or not) */
  read: number;
  /** where the next page starts; null when the window is read to its end */
  next: Cursor | null;
};

type Row = {
  id: string;
  type: string;
  event: string | null;
  message_id: string;
  received_at: string;
  payload: unknown;
  integrations: unknown;
};

const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

/** The first cursor of a backfill. */
export const firstCursor = (scope: Pick<PageScope, "from">): Cursor => ({ source: 0, at: scope.from.toISOString(), id: ZERO_UUID });

/**
 * One source's calls after the cursor, in order: its API calls (audience identify calls, deletion
 * notices and test-sends are not routed, docs/routing.md) not erased, received in the window and
 * within retention. Unless it resends, a call that already has a delivery to the destination — live,
 * from another backfill, a replay — is left out here, by deliveries(message_row_id, destination_id,
 * replay_number). $8 selects the whole payload only when the filter has conditions.
 */
const PAGE_SQL = `
  SELECT m.id, m.type, m.event, m.message_id,
         to_char(m.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS received_at,
         CASE WHEN $8 THEN m.payload END AS payload, m.payload -> 'integrations' AS integrations
    FROM messages m
   WHERE m.source_id = $1 AND m.workspace_id = $2
     AND m.received_at >= $3 AND (m.received_at > $3 OR m.id > $4::uuid)
     AND m.received_at >= $5 AND m.received_at < $6
     AND m.origin = 'api' AND m.payload IS NOT NULL
     AND ($9 OR NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_row_id = m.id AND d.destination_id = $10))
   ORDER BY m.received_at, m.id
   LIMIT $7`;

/**
 * The next page of at most `limit` calls read from `cursor` (fewer when a source ends: the next
 * page starts the next source). Reads on `db` (a transaction's client when the page is queued).
 */
export async function readPage(db: Pick<pg.ClientBase, "query">, scope: PageScope, cursor: Cursor, limit: number): Promise<Page> {
  if (cursor.source >= scope.sourceIds.length) return { messageRowIds: [], read: 0, next: null };
  const start = new Date(Math.max(scope.from.getTime(), scope.retainedFrom.getTime()));
  const withPayload = !!scope.filter?.where;
  const { rows } = await db.query<Row>(PAGE_SQL, [
    scope.sourceIds[cursor.source],
    scope.workspaceId,
    cursor.at,
    cursor.id,
    start,
    scope.to,
    limit,
    withPayload,
    scope.resend,
    scope.destinationId,
  ]);
  const messageRowIds = rows.filter((r) => takes(scope.filter, r)).map((r) => r.id);
  const last = rows.at(-1);
  const next: Cursor | null =
    rows.length === limit && last
      ? { source: cursor.source, at: last.received_at, id: last.id }
      : cursor.source + 1 < scope.sourceIds.length
        ? { ...firstCursor(scope), source: cursor.source + 1 }
        : null;
  return { messageRowIds, read: rows.length, next };
}

/** Routing as at ingest, for a destination connected to the call's source and enabled (docs/routing.md). */
function takes(filter: DestinationFilter | null, r: Row): boolean {
  if (!integrationsAllow(r.integrations as Record<string, unknown> | null)) return false;
  return filterAllows(filter, {
    type: r.type,
    event: r.event,
    messageId: r.message_id,
    payload: r.payload as Record<string, unknown> | null,
  });
}

/** How many calls the backfill would send: every page read, none queued (the dry run). */
export async function countPages(db: Pick<pg.ClientBase, "query">, scope: PageScope, pageSize: number): Promise<number> {
  let cursor: Cursor | null = firstCursor(scope);
  let count = 0;
  while (cursor) {
    const page = await readPage(db, scope, cursor, pageSize);
    count += page.messageRowIds.length;
    cursor = page.next;
  }
  return count;
}
