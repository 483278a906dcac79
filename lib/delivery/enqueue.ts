import "server-only";
import type pg from "pg";
import { jobInsertCte, insertJobs } from "../platform/queue";
import { columns, type InputRef } from "../platform/pg-columns";
import { newRowId } from "../tracking/row-ids";

/** How many deliveries one `deliver` job carries: one job per batch, not per message. */
export const DELIVERIES_PER_JOB = 100;

export type NewDelivery = { workspaceId: string; messageRowId: string; destinationId: string };

/**
 * The one producer of deliveries (a house rule, lib/delivery/one-producer.test.ts;
 * docs/architecture.md#one-plan): ingest's (ingestDeliveriesCte, inside its one statement), those
 * made from stored messages (createDeliveries: audience syncs, deletion notices, tests' seeding) and
 * those a person asks for (requestDeliveries: replays, backfills, test-sends), each id from the
 * row-id scheme (lib/tracking/row-ids.ts).
 */

/**
 * Creates deliveries (one per message and destination) and their `deliver` jobs on the caller's
 * client, inside the caller's transaction: a committed message always has its jobs. Deliveries that
 * already exist (same message and destination; replay_number 0, replays are made by
 * lib/request-log/replay.ts) are skipped. Returns the new deliveries' ids. Ids are time-ordered
 * (lib/tracking/row-ids.ts), so the primary key grows at its right edge.
 */
export async function createDeliveries(client: pg.PoolClient, rows: NewDelivery[], opts: { startAfter?: Date } = {}): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: created } = await client.query<{ id: string }>(
    // A destination that orders per user gets the message's key (docs/webhooks.md#ordering), as at ingest.
    `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, order_key)
     SELECT t.i, t.w, t.m, t.d,
            CASE WHEN o.id IS NOT NULL THEN (SELECT coalesce(m.user_id, m.anonymous_id) FROM messages m WHERE m.id = t.m) END
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[]) AS t(i, w, m, d)
       LEFT JOIN destinations o ON o.id = t.d AND o.ordering = 'perUser'
     ON CONFLICT (message_row_id, destination_id, replay_number) DO NOTHING
     RETURNING id`,
    [rows.map(() => newRowId()), rows.map((r) => r.workspaceId), rows.map((r) => r.messageRowId), rows.map((r) => r.destinationId)],
  );
  const ids = created.map((r) => r.id);
  await enqueueDeliveryJobs(client, ids, opts);
  return ids;
}

/** A delivery made by someone's request rather than by ingest: a replay, a backfill's, a test-send. */
export type RequestedDelivery = NewDelivery & {
  /** the URLs its rounds go to, a replay's in `every` mode; null: the destination's */
  pendingUrls?: string[] | null;
  /** the only URLs it ever goes to (a test-send's chosen URL, kept by its replays); null: the destination's */
  targetUrls?: string[] | null;
  replayOf?: string | null;
  replayNumber?: number;
  backfillId?: string | null;
  /**
   * Asked for in its user's order (docs/webhooks.md#ordering): at a destination that orders per user it
   * takes the message's key, so it waits for what is pending and what arrives later waits for it.
   */
  ordered?: boolean;
};

/**
 * Deliveries that replays, backfills and test-sends ask for, with their jobs (none for a test-send,
 * which its caller processes at once), their ids from the row-id scheme like every other delivery.
 * `conflict`: "pair" skips a (message, destination, replay number) that exists — a replay racing
 * another, a backfill's call that has its delivery; "backfill" skips a call the backfill queued
 * before. `nextReplayNumber`: each takes the next free replay number of its pair (a backfill's `resend`).
 */
export async function requestDeliveries(
  client: pg.PoolClient,
  rows: RequestedDelivery[],
  opts: { conflict?: "pair" | "backfill"; nextReplayNumber?: boolean; lane?: "deliver" | "deliverBackfill"; enqueue?: boolean } = {},
): Promise<string[]> {
  if (rows.length === 0) return [];
  const replayNumber = opts.nextReplayNumber
    ? "coalesce((SELECT max(p.replay_number) + 1 FROM deliveries p WHERE p.message_row_id = x.message_row_id AND p.destination_id = x.destination_id), 0)"
    : "x.replay_number";
  const conflict =
    opts.conflict === "backfill"
      ? "ON CONFLICT (backfill_id, message_row_id) WHERE backfill_id IS NOT NULL DO NOTHING"
      : opts.conflict === "pair"
        ? "ON CONFLICT DO NOTHING"
        : "";
  const { rows: created } = await client.query<{ id: string }>(
    `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, pending_urls, target_urls, replay_of, replay_number, backfill_id,
                             order_key)
     SELECT x.id, x.workspace_id, x.message_row_id, x.destination_id, x.pending_urls, x.target_urls, x.replay_of, ${replayNumber}, x.backfill_id,
            CASE WHEN x.ordered THEN (SELECT coalesce(m.user_id, m.anonymous_id) FROM messages m JOIN destinations t ON t.id = x.destination_id
                                       WHERE m.id = x.message_row_id AND t.ordering = 'perUser') END
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, workspace_id uuid, message_row_id uuid, destination_id uuid, pending_urls text[],
                                             target_urls text[], replay_of uuid, replay_number int, backfill_id uuid, ordered boolean)
     ${conflict}
     RETURNING id`,
    [
      JSON.stringify(
        rows.map((r) => ({
          id: newRowId(),
          workspace_id: r.workspaceId,
          message_row_id: r.messageRowId,
          destination_id: r.destinationId,
          pending_urls: r.pendingUrls ?? null,
          target_urls: r.targetUrls ?? null,
          replay_of: r.replayOf ?? null,
          replay_number: r.replayNumber ?? 0,
          backfill_id: r.backfillId ?? null,
          ordered: r.ordered ?? false,
        })),
      ),
    ],
  );
  const ids = created.map((r) => r.id);
  if (opts.enqueue !== false) await enqueueDeliveryJobs(client, ids, { lane: opts.lane });
  return ids;
}

/**
 * Inserts `deliver` jobs for existing deliveries (new ones, replays, retries) on the caller's client;
 * `lane: "deliverBackfill"` for a backfill's (docs/routing.md#backfill).
 */
export async function enqueueDeliveryJobs(
  client: pg.PoolClient,
  deliveryIds: string[],
  opts: { startAfter?: Date; lane?: "deliver" | "deliverBackfill" } = {},
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const jobs = [];
  for (let i = 0; i < deliveryIds.length; i += DELIVERIES_PER_JOB) {
    jobs.push({
      data: { deliveryIds: deliveryIds.slice(i, i + DELIVERIES_PER_JOB) },
      ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
    });
  }
  await insertJobs(opts.lane ?? "deliver", jobs, { client });
}

/** One of ingest's new deliveries (docs/architecture.md#ingest-statement). */
export type IngestDelivery = {
  id: string;
  messageRowId: string;
  destinationId: string;
  /** its message's key at a destination that orders per user (docs/webhooks.md#ordering), else null */
  orderKey: string | null;
};

/** Ingest's deliveries as its statement's columns (lib/platform/pg-columns.ts), named as the `deliveries` table's. */
export const INGEST_DELIVERY_COLUMNS = columns<IngestDelivery>()({
  id: ["uuid", (d) => d.id],
  message_row_id: ["uuid", (d) => d.messageRowId],
  destination_id: ["uuid", (d) => d.destinationId],
  order_key: ["text", (d) => d.orderKey],
});

/**
 * The deliveries part of ingest's one statement (docs/architecture.md#ingest-statement), as a CTE to
 * follow a CTE `insertedMessages` that returns the new messages' `id`s: one delivery per row of
 * `deliveries` (INGEST_DELIVERY_COLUMNS) whose message was inserted (a duplicate's are dropped).
 * Followed by ingestJobsCte's `deliver` jobs for them: what createDeliveries does in two round trips,
 * made by Postgres inside the statement. After the commit, call wakeWorkers("deliver") when
 * deliveries were made.
 */
export const ingestDeliveriesCte = (p: {
  insertedMessages: string;
  workspaceId: string;
  deliveries: InputRef<typeof INGEST_DELIVERY_COLUMNS>;
}) => `new_deliveries AS (
    INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id, order_key)
    SELECT x.id, ${p.workspaceId}, x.message_row_id, x.destination_id, x.order_key
      FROM ${p.deliveries.unnest("x")}
      JOIN ${p.insertedMessages} n ON n.id = x.message_row_id
    RETURNING id
  )`;

/**
 * The `deliver_jobs` CTE that follows ingestDeliveriesCte: the jobs for `new_deliveries`,
 * DELIVERIES_PER_JOB ids each, inserted with pg-boss's own insert for the queue (read from the
 * database once: lib/platform/queue.ts jobInsertCte).
 */
export async function ingestJobsCte(): Promise<string> {
  const jobsJson = `SELECT json_agg(json_build_object('data', json_build_object('deliveryIds', c.ids)))
      FROM (SELECT array_agg(z.id) AS ids
              FROM (SELECT id, (row_number() OVER () - 1) / ${DELIVERIES_PER_JOB} AS chunk FROM new_deliveries) z
             GROUP BY z.chunk) c`;
  return `deliver_jobs AS (${await jobInsertCte("deliver", jobsJson)})`;
}
