import "server-only";
import type pg from "pg";
import { pool, withTransaction } from "../platform/db";
import { env } from "../platform/env";
import { AppError, assertUuid, notFound } from "../platform/errors";
import { sendJob } from "../platform/queue";
import { recordAudit, type Actor } from "../audit/record";
import { storedFilter } from "../destinations/destinations";
import type { BackfillDryRun, BackfillDto, BackfillState, backfillInputSchema } from "./contract";
import { countPages, type PageScope } from "./pages";
import type { z } from "zod";

/**
 * Backfills (docs/routing.md#backfill): the dry run, the start, progress and cancel. The pages and
 * the runner that queues them are pages.ts and run.ts.
 */

/** Rows a dry run reads per query. */
export const COUNT_PAGE = 2_000;

type Input = z.output<typeof backfillInputSchema>;

type BackfillRow = {
  id: string;
  workspace_id: string;
  destination_id: string;
  source_ids: string[];
  from_at: Date;
  to_at: Date;
  resend: boolean;
  state: BackfillState;
  total: number;
  queued: number;
  done: number;
  started_by: string;
  created_at: Date;
  ended_at: Date | null;
  cursor: unknown;
  exhausted: boolean;
};

const COLUMNS =
  "id, workspace_id, destination_id, source_ids, from_at, to_at, resend, state, total, queued, done, started_by, created_at, ended_at, cursor, exhausted";

/** Calls received before this are past message retention (lib/maintenance/retention.ts). */
export const retainedFrom = (now: Date): Date => new Date(now.getTime() - env().RETENTION_MESSAGES_DAYS * 86_400_000);

/**
 * The destination (this workspace's, enabled) and the scope of a backfill of `input`, checked: its
 * sources must be the workspace's and connected to the destination, its window within retention.
 */
async function scopeOf(
  db: Pick<pg.ClientBase, "query">,
  opts: { workspaceId: string; destinationId: string; input: Input; now: Date },
): Promise<PageScope> {
  assertUuid(opts.destinationId, "Destination");
  const { rows } = await db.query<{ id: string; enabled: boolean; filter: unknown; sources: string[] }>(
    `SELECT d.id, d.enabled, d.filter, ARRAY(SELECT ds.source_id::text FROM destination_sources ds WHERE ds.destination_id = d.id) AS sources
       FROM destinations d WHERE d.id = $1 AND d.workspace_id = $2`,
    [opts.destinationId, opts.workspaceId],
  );
  const destination = rows[0];
  if (!destination) throw notFound("Destination");
  const { input, now } = opts;
  const fields: Record<string, string[]> = {};
  const connected = new Set(destination.sources);
  input.sourceIds.forEach((id, i) => {
    if (!connected.has(id)) fields[`sourceIds.${i}`] = ["Not a source connected to this destination"];
  });
  const from = new Date(input.from);
  // A window's end in the future means "until now": calls received later are live traffic.
  const to = input.to && Date.parse(input.to) < now.getTime() ? new Date(input.to) : now;
  const retained = retainedFrom(now);
  if (from < retained)
    fields.from = [
      `Before message retention (${env().RETENTION_MESSAGES_DAYS} days): calls received before ${retained.toISOString()} are deleted; start at or after it`,
    ];
  if (to <= from) fields.to = ["Must be after the start of the window"];
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);
  if (!destination.enabled) throw new AppError("conflict", "The destination is disabled: enable it to backfill it");
  return {
    workspaceId: opts.workspaceId,
    destinationId: destination.id,
    sourceIds: [...new Set(input.sourceIds)].sort(),
    from,
    to,
    retainedFrom: retained,
    resend: input.resend,
    filter: storedFilter(destination.filter),
  };
}

/**
 * A dry run, or a backfill started: counted, stored, its runner queued and the start written to
 * the audit log, in one transaction. Two backfills over the same calls started together share them:
 * each call goes once, to whichever queues it first (unless they resend).
 */
export async function startBackfill(opts: {
  workspaceId: string;
  destinationId: string;
  actor: Actor;
  input: Input;
  now?: Date;
}): Promise<BackfillDryRun | BackfillDto> {
  const now = opts.now ?? new Date();
  if (opts.input.dryRun) {
    const scope = await scopeOf(pool(), { ...opts, now });
    const count = await countPages(pool(), scope, COUNT_PAGE);
    return { dryRun: true, count, from: scope.from.toISOString(), to: scope.to.toISOString() };
  }
  const id = await withTransaction(async (client) => {
    const scope = await scopeOf(client, { ...opts, now });
    const total = await countPages(client, scope, COUNT_PAGE);
    const {
      rows: [row],
    } = await client.query<{ id: string }>(
      `INSERT INTO backfills (id, workspace_id, destination_id, source_ids, from_at, to_at, resend, total, started_by)
       VALUES (gen_random_uuid(), $1, $2, $3::uuid[], $4, $5, $6, $7, $8) RETURNING id`,
      [opts.workspaceId, scope.destinationId, scope.sourceIds, scope.from, scope.to, scope.resend, total, opts.actor.label],
    );
    await recordAudit(client, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "backfill.start",
      resourceType: "destination",
      resourceId: scope.destinationId,
      changes: {
        backfill: {
          before: null,
          after: { id: row.id, sourceIds: scope.sourceIds, from: scope.from, to: scope.to, resend: scope.resend, total },
        },
      },
    });
    await sendJob("backfill", { backfillId: row.id }, { client, singletonKey: row.id });
    return row.id;
  });
  return getBackfill({ workspaceId: opts.workspaceId, destinationId: opts.destinationId, id });
}

/** A backfill's page scope as stored, for its runner: the destination's filter as it is now. */
export async function storedScope(db: Pick<pg.ClientBase, "query">, row: BackfillRow, now: Date): Promise<PageScope | null> {
  const { rows } = await db.query<{ filter: unknown; enabled: boolean }>("SELECT filter, enabled FROM destinations WHERE id = $1", [
    row.destination_id,
  ]);
  if (!rows[0]) return null;
  return {
    workspaceId: row.workspace_id,
    destinationId: row.destination_id,
    sourceIds: [...row.source_ids].sort(),
    from: row.from_at,
    to: row.to_at,
    retainedFrom: retainedFrom(now),
    resend: row.resend,
    filter: storedFilter(rows[0].filter),
  };
}

/** Pending deliveries of a backfill, by deliveries(backfill_id, state) (partial: pending only). */
export async function pendingOf(db: Pick<pg.ClientBase, "query">, backfillId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE backfill_id = $1 AND state = 'pending'", [
    backfillId,
  ]);
  return rows[0].n;
}

export async function loadBackfillRow(db: Pick<pg.ClientBase, "query">, id: string, forUpdate = false): Promise<BackfillRow | null> {
  const { rows } = await db.query<BackfillRow>(`SELECT ${COLUMNS} FROM backfills WHERE id = $1 ${forUpdate ? "FOR UPDATE" : ""}`, [id]);
  return rows[0] ?? null;
}
export type { BackfillRow };

/** A row as the API shows it: done counted live (queued less still pending), its rate and time left. */
async function toDto(row: BackfillRow, now = new Date()): Promise<BackfillDto> {
  const done = Math.max(0, row.queued - (await pendingOf(pool(), row.id)));
  const seconds = ((row.ended_at ?? now).getTime() - row.created_at.getTime()) / 1000;
  const rate = done > 0 && seconds > 0 ? done / seconds : null;
  const left = Math.max(0, row.total - done);
  return {
    id: row.id,
    destinationId: row.destination_id,
    sourceIds: row.source_ids,
    from: row.from_at.toISOString(),
    to: row.to_at.toISOString(),
    resend: row.resend,
    state: row.state,
    total: row.total,
    queued: row.queued,
    done,
    ratePerSecond: rate === null ? null : Math.round(rate * 10) / 10,
    etaSeconds: row.state === "running" && rate ? Math.ceil(left / rate) : null,
    startedBy: row.started_by,
    createdAt: row.created_at.toISOString(),
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

async function findRow(opts: { workspaceId: string; destinationId: string; id: string }): Promise<BackfillRow> {
  assertUuid(opts.destinationId, "Backfill");
  assertUuid(opts.id, "Backfill");
  const { rows } = await pool().query<BackfillRow>(
    `SELECT ${COLUMNS} FROM backfills WHERE id = $1 AND destination_id = $2 AND workspace_id = $3`,
    [opts.id, opts.destinationId, opts.workspaceId],
  );
  if (!rows[0]) throw notFound("Backfill");
  return rows[0];
}

export async function getBackfill(opts: { workspaceId: string; destinationId: string; id: string }): Promise<BackfillDto> {
  return toDto(await findRow(opts));
}

/** A destination's newest backfills, by backfills(destination_id, created_at). */
export async function listBackfills(opts: { workspaceId: string; destinationId: string }): Promise<BackfillDto[]> {
  assertUuid(opts.destinationId, "Destination");
  const { rows: dest } = await pool().query("SELECT 1 FROM destinations WHERE id = $1 AND workspace_id = $2", [
    opts.destinationId,
    opts.workspaceId,
  ]);
  if (dest.length === 0) throw notFound("Destination");
  const { rows } = await pool().query<BackfillRow>(
    `SELECT ${COLUMNS} FROM backfills WHERE destination_id = $1 AND workspace_id = $2 ORDER BY created_at DESC LIMIT 20`,
    [opts.destinationId, opts.workspaceId],
  );
  return Promise.all(rows.map((r) => toDto(r)));
}

/**
 * Cancels a running backfill: its runner queues no page after this commits (it takes each page under
 * the backfill's row lock and checks the state there, run.ts); deliveries already queued finish.
 * Cancelling an ended backfill changes nothing and writes no audit row.
 */
export async function cancelBackfill(opts: { workspaceId: string; destinationId: string; id: string; actor: Actor }): Promise<BackfillDto> {
  await findRow(opts);
  await withTransaction(async (client) => {
    const { rows } = await client.query<{ queued: number }>(
      "UPDATE backfills SET state = 'cancelled', ended_at = now(), updated_at = now() WHERE id = $1 AND state = 'running' RETURNING queued",
      [opts.id],
    );
    if (rows.length === 0) return;
    await recordAudit(client, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "backfill.cancel",
      resourceType: "destination",
      resourceId: opts.destinationId,
      changes: {
        backfill: { before: { id: opts.id, state: "running" }, after: { id: opts.id, state: "cancelled", queued: rows[0].queued } },
      },
    });
  });
  return getBackfill(opts);
}
