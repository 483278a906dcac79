import "server-only";
import type pg from "pg";
import { insertJobs } from "../platform/queue";

/** How many deliveries one `deliver` job carries: one job per batch, not per message. */
export const DELIVERIES_PER_JOB = 100;

export type NewDelivery = { workspaceId: string; messageRowId: string; destinationId: string };

/**
 * Creates deliveries (one per message and destination) and their `deliver` jobs on the caller's
 * client, inside the caller's transaction: a committed message always has its jobs. Deliveries that
 * already exist (same message and destination; replay_number 0, replays are made by
 * lib/request-log/replay.ts) are skipped. Returns the new deliveries' ids.
 */
export async function createDeliveries(client: pg.PoolClient, rows: NewDelivery[], opts: { startAfter?: Date } = {}): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: created } = await client.query<{ id: string }>(
    `INSERT INTO deliveries (id, workspace_id, message_row_id, destination_id)
     SELECT gen_random_uuid(), w, m, d FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS t(w, m, d)
     ON CONFLICT (message_row_id, destination_id, replay_number) DO NOTHING
     RETURNING id`,
    [rows.map((r) => r.workspaceId), rows.map((r) => r.messageRowId), rows.map((r) => r.destinationId)],
  );
  const ids = created.map((r) => r.id);
  await enqueueDeliveryJobs(client, ids, opts);
  return ids;
}

/** Inserts `deliver` jobs for existing deliveries (new ones, replays, retries) on the caller's client. */
export async function enqueueDeliveryJobs(client: pg.PoolClient, deliveryIds: string[], opts: { startAfter?: Date } = {}): Promise<void> {
  if (deliveryIds.length === 0) return;
  const jobs = [];
  for (let i = 0; i < deliveryIds.length; i += DELIVERIES_PER_JOB) {
    jobs.push({
      data: { deliveryIds: deliveryIds.slice(i, i + DELIVERIES_PER_JOB) },
      ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
    });
  }
  await insertJobs("deliver", jobs, { client });
}
