import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import type pg from "pg";
import { pool, withTransaction } from "../platform/db";
import { sendJob } from "../platform/queue";
import { AppError, notFound } from "../platform/errors";
import type { AudienceSync } from "../platform/generated/prisma/client";
import { assertAudienceId } from "./audience-id";
import type { AudienceSyncDto, AudienceSyncRequest, SyncStatus, SyncTrigger } from "./contract";

/** An audience_syncs row's columns under their Prisma field names: a SyncRow. */
export const SYNC_COLUMNS = `s.id, s.status, s.initial, s.trigger, s.entered, s.exited, s.sent, s.total, s.size, s.error,
  s.started_at AS "startedAt", s.finished_at AS "finishedAt"`;

/** What SYNC_COLUMNS reads: the resume bookkeeping (done_through, full_destination_ids) stays inside sync.ts. */
export type SyncRow = Omit<AudienceSync, "audienceId" | "doneThrough" | "fullDestinationIds">;

/** Field by field, so that extra columns a query selects (an audience id) stay out of the DTO. */
export function toSyncDto(r: SyncRow): AudienceSyncDto {
  return {
    id: r.id,
    // The table's CHECK constraints hold status and trigger to the contract's lists.
    status: r.status as SyncStatus,
    initial: r.initial,
    trigger: r.trigger as SyncTrigger,
    entered: r.entered,
    exited: r.exited,
    sent: r.sent,
    total: r.total,
    size: r.size,
    error: r.error,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    durationMs: r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
  };
}

const ACTIVE = `('queued', 'running')`;

/**
 * Asks for a sync of one audience: a `queued` sync row and its job, committed together on the
 * caller's client. The audience row is locked first, so concurrent requests (a click while the
 * schedule fires) serialize and the second finds the first: an audience never has two syncs
 * waiting. Returns the sync that will run, new or already queued/running.
 */
export async function requestAudienceSync(
  client: pg.PoolClient,
  opts: { audienceId: string; workspaceId?: string; trigger: SyncTrigger },
): Promise<AudienceSyncRequest> {
  const { rows: found } = await client.query(
    `SELECT id FROM audiences WHERE id = $1::uuid AND ($2::uuid IS NULL OR workspace_id = $2::uuid) FOR UPDATE`,
    [opts.audienceId, opts.workspaceId ?? null],
  );
  if (found.length === 0) throw notFound("Audience");
  const { rows: active } = await client.query<SyncRow>(
    `SELECT ${SYNC_COLUMNS} FROM audience_syncs s WHERE s.audience_id = $1 AND s.status IN ${ACTIVE} ORDER BY s.started_at DESC LIMIT 1`,
    [opts.audienceId],
  );
  if (active[0]) return { sync: toSyncDto(active[0]), created: false };
  const { rows } = await client.query<SyncRow>(
    `INSERT INTO audience_syncs AS s (id, audience_id, status, trigger, started_at)
     VALUES (gen_random_uuid(), $1, 'queued', $2, now()) RETURNING ${SYNC_COLUMNS}`,
    [opts.audienceId, opts.trigger],
  );
  const sync = rows[0];
  await sendJob("audienceSync", { audienceId: opts.audienceId, syncId: sync.id, trigger: opts.trigger }, { client });
  return { sync: toSyncDto(sync), created: true };
}

/**
 * The schedule's tick: queues a sync for every audience whose schedule is due (its last sync
 * started `scheduleMinutes` ago or more, or it never synced) and that has none waiting or running.
 * Safe to run from several workers at once: requestAudienceSync dedupes under the audience's lock.
 */
export async function queueDueAudienceSyncs(): Promise<string[]> {
  const { rows } = await pool().query<{ id: string }>(
    `SELECT a.id FROM audiences a
     WHERE a.schedule_minutes IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM audience_syncs s WHERE s.audience_id = a.id
                       AND (s.status IN ${ACTIVE} OR s.started_at > now() - make_interval(mins => a.schedule_minutes)))`,
  );
  const queued: string[] = [];
  for (const { id } of rows) {
    try {
      const r = await withTransaction((client) => requestAudienceSync(client, { audienceId: id, trigger: "schedule" }));
      if (r.created) queued.push(id);
    } catch (err) {
      // Deleted between the scan and the lock: nothing to do.
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
    }
  }
  return queued;
}

/** "Sync now" (POST /api/audiences/{id}/sync): the sync that will run, queued by this request or already waiting. */
export async function requestManualAudienceSync(opts: {
  workspaceId: string;
  actor: Actor;
  audienceId: string;
}): Promise<AudienceSyncRequest> {
  assertAudienceId(opts.audienceId);
  const { audienceId, workspaceId } = opts;
  return withTransaction(async (client) => {
    const requested = await requestAudienceSync(client, { audienceId, workspaceId, trigger: "manual" });
    await recordAudit(client, {
      workspaceId,
      actor: opts.actor,
      action: "audience.sync",
      resourceType: "audience",
      resourceId: audienceId,
    });
    return requested;
  });
}

/** GET /api/audiences/{id}/syncs: newest first. */
export async function listAudienceSyncs(opts: { workspaceId: string; audienceId: string; limit?: number }): Promise<AudienceSyncDto[]> {
  assertAudienceId(opts.audienceId);
  const { rows: a } = await pool().query(`SELECT 1 FROM audiences WHERE id = $1 AND workspace_id = $2`, [
    opts.audienceId,
    opts.workspaceId,
  ]);
  if (a.length === 0) throw notFound("Audience");
  const { rows } = await pool().query<SyncRow>(
    `SELECT ${SYNC_COLUMNS} FROM audience_syncs s WHERE s.audience_id = $1 ORDER BY s.started_at DESC LIMIT $2`,
    [opts.audienceId, opts.limit ?? 50],
  );
  return rows.map(toSyncDto);
}
