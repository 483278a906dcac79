import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import { diffFields } from "../audit/diff";
import type pg from "pg";
import { pool, withTransaction } from "../platform/db";
import { AppError, notFound } from "../platform/errors";
import type { Audience } from "../platform/generated/prisma/client";
import { assertAudienceId } from "./audience-id";
import type { Condition } from "./condition";
import { audiencePropertyName } from "./names";
import type { AudienceDto, CreateAudienceInput, UpdateAudienceInput } from "./contract";
import { SYNC_COLUMNS, type SyncRow, requestAudienceSync, toSyncDto } from "./syncs";

/** An audiences row as AUDIENCE_COLUMNS reads it: the Prisma model's fields, with its sources and destinations. */
type AudienceRow = Omit<Audience, "workspaceId"> & { sourceIds: string[]; destinationIds: string[] };

const AUDIENCE_COLUMNS = `a.id, a.name, a.property_name AS "propertyName", a.condition, a.schedule_minutes AS "scheduleMinutes",
  a.last_synced_at AS "lastSyncedAt", a.created_at AS "createdAt", a.updated_at AS "updatedAt",
  ARRAY(SELECT x.source_id::text FROM audience_sources x WHERE x.audience_id = a.id ORDER BY x.source_id) AS "sourceIds",
  ARRAY(SELECT x.destination_id::text FROM audience_destinations x WHERE x.audience_id = a.id ORDER BY x.destination_id)
    AS "destinationIds"`;

/** Audience rows → DTOs, with their sizes and last syncs in two more queries (not one per audience). */
async function toDtos(db: pg.Pool | pg.PoolClient, rows: AudienceRow[]): Promise<AudienceDto[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [sizes, syncs] = await Promise.all([
    db.query<{ audience_id: string; size: number }>(
      `SELECT audience_id, count(*)::int AS size FROM audience_members WHERE audience_id = ANY($1::uuid[]) GROUP BY audience_id`,
      [ids],
    ),
    db.query<SyncRow & { audienceId: string }>(
      `SELECT DISTINCT ON (s.audience_id) s.audience_id AS "audienceId", ${SYNC_COLUMNS} FROM audience_syncs s
       WHERE s.audience_id = ANY($1::uuid[]) ORDER BY s.audience_id, s.started_at DESC`,
      [ids],
    ),
  ]);
  const size = new Map(sizes.rows.map((r) => [r.audience_id, r.size]));
  const last = new Map(syncs.rows.map((r) => [r.audienceId, toSyncDto(r)]));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    propertyName: r.propertyName,
    // Stored only after audienceConditionSchema accepted it (create and update).
    condition: r.condition as Condition,
    sourceIds: r.sourceIds,
    destinationIds: r.destinationIds,
    scheduleMinutes: r.scheduleMinutes,
    size: size.get(r.id) ?? 0,
    lastSync: last.get(r.id) ?? null,
    lastSyncedAt: r.lastSyncedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

/** Sources and destinations must be the workspace's own; an unknown id is a field error. */
export async function assertOwnedRefs(
  db: pg.Pool | pg.PoolClient,
  workspaceId: string,
  refs: { sourceIds?: string[]; destinationIds?: string[] },
) {
  const fields: Record<string, string[]> = {};
  for (const [key, table, what] of [
    ["sourceIds", "sources", "source"],
    ["destinationIds", "destinations", "destination"],
  ] as const) {
    const wanted = [...new Set(refs[key] ?? [])];
    if (wanted.length === 0) continue;
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM ${table} WHERE workspace_id = $1 AND id = ANY($2::uuid[])`, [
      workspaceId,
      wanted,
    ]);
    const known = new Set(rows.map((r) => r.id));
    const missing = wanted.filter((id) => !known.has(id));
    if (missing.length > 0) fields[key] = [`Unknown ${what}: ${missing.join(", ")}`];
  }
  if (Object.keys(fields).length > 0) throw new AppError("validation_failed", "Some fields are invalid", fields);
}

async function assertPropertyFree(db: pg.PoolClient, workspaceId: string, propertyName: string, exceptId: string | null) {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM audiences WHERE workspace_id = $1 AND property_name = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)`,
    [workspaceId, propertyName, exceptId],
  );
  if (rows[0]) throw propertyTaken(propertyName, rows[0].name);
}

const propertyTaken = (propertyName: string, other?: string) =>
  new AppError(
    "conflict",
    `Another audience${other ? ` ("${other}")` : ""} already sets the property "${propertyName}"; choose a different name`,
    { name: [`The property "${propertyName}" is already used by another audience`] },
  );

/** The unique (workspace, property) index catches the race the pre-check cannot. */
function mapUniqueViolation(propertyName: string) {
  return (err: unknown): never => {
    if ((err as { code?: string }).code === "23505" && /property_name/.test((err as { constraint?: string }).constraint ?? ""))
      throw propertyTaken(propertyName);
    throw err;
  };
}

export async function listAudiences(opts: { workspaceId: string }): Promise<AudienceDto[]> {
  const { rows } = await pool().query<AudienceRow>(
    `SELECT ${AUDIENCE_COLUMNS} FROM audiences a WHERE a.workspace_id = $1 ORDER BY a.created_at`,
    [opts.workspaceId],
  );
  return toDtos(pool(), rows);
}

export async function getAudience(opts: { workspaceId: string; id: string }): Promise<AudienceDto> {
  assertAudienceId(opts.id);
  const { rows } = await pool().query<AudienceRow>(`SELECT ${AUDIENCE_COLUMNS} FROM audiences a WHERE a.id = $1 AND a.workspace_id = $2`, [
    opts.id,
    opts.workspaceId,
  ]);
  if (!rows[0]) throw notFound("Audience");
  return (await toDtos(pool(), rows))[0];
}

/**
 * Creates the audience and queues its first sync in the same transaction: rule 2 of the seed
 * ("when an audience is first created, an identify call is sent for every user in it").
 */
export async function createAudience(opts: { workspaceId: string; actor: Actor; input: CreateAudienceInput }): Promise<AudienceDto> {
  const { input, workspaceId } = opts;
  const propertyName = audiencePropertyName(input.name);
  const id = await withTransaction(async (client) => {
    await assertOwnedRefs(client, workspaceId, input);
    await assertPropertyFree(client, workspaceId, propertyName, null);
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO audiences (id, workspace_id, name, property_name, condition, schedule_minutes, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, now()) RETURNING id`,
      [workspaceId, input.name, propertyName, JSON.stringify(input.condition), input.scheduleMinutes ?? null],
    );
    const audienceId = rows[0].id;
    await client.query(`INSERT INTO audience_sources (audience_id, source_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`, [
      audienceId,
      input.sourceIds,
    ]);
    await client.query(
      `INSERT INTO audience_destinations (audience_id, destination_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`,
      [audienceId, input.destinationIds],
    );
    await requestAudienceSync(client, { audienceId, workspaceId, trigger: "created" });
    await recordAudit(client, {
      workspaceId,
      actor: opts.actor,
      action: "audience.create",
      resourceType: "audience",
      resourceId: audienceId,
      changes: { name: { before: null, after: input.name }, condition: { before: null, after: input.condition } },
    });
    return audienceId;
  }).catch(mapUniqueViolation(propertyName));
  return getAudience({ workspaceId, id });
}

/**
 * Changes take effect at the next sync. A new name is a new property: every destination then gets
 * the full membership again under it. A newly connected destination gets the full membership at
 * the next sync; the others keep receiving only changes.
 */
export async function updateAudience(opts: {
  workspaceId: string;
  actor: Actor;
  id: string;
  input: UpdateAudienceInput;
}): Promise<AudienceDto> {
  const { input, workspaceId, id } = opts;
  assertAudienceId(id);
  const propertyName = input.name !== undefined ? audiencePropertyName(input.name) : null;
  await withTransaction(async (client) => {
    const { rows } = await client.query<{ property_name: string; name: string; condition: unknown; schedule_minutes: number | null }>(
      `SELECT property_name, name, condition, schedule_minutes FROM audiences WHERE id = $1 AND workspace_id = $2 FOR UPDATE`,
      [id, workspaceId],
    );
    if (!rows[0]) throw notFound("Audience");
    await assertOwnedRefs(client, workspaceId, input);
    const renamed = propertyName !== null && propertyName !== rows[0].property_name;
    if (renamed) await assertPropertyFree(client, workspaceId, propertyName, id);
    await client.query(
      `UPDATE audiences SET name = coalesce($2, name), property_name = coalesce($3, property_name), condition = coalesce($4::jsonb, condition),
         schedule_minutes = CASE WHEN $5::boolean THEN $6::int ELSE schedule_minutes END, updated_at = now()
       WHERE id = $1`,
      [
        id,
        input.name ?? null,
        propertyName,
        input.condition ? JSON.stringify(input.condition) : null,
        input.scheduleMinutes !== undefined,
        input.scheduleMinutes ?? null,
      ],
    );
    if (input.sourceIds) {
      await client.query(`DELETE FROM audience_sources WHERE audience_id = $1 AND source_id <> ALL($2::uuid[])`, [id, input.sourceIds]);
      await client.query(`INSERT INTO audience_sources (audience_id, source_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`, [
        id,
        input.sourceIds,
      ]);
    }
    if (input.destinationIds) {
      await client.query(`DELETE FROM audience_destinations WHERE audience_id = $1 AND destination_id <> ALL($2::uuid[])`, [
        id,
        input.destinationIds,
      ]);
      await client.query(
        `INSERT INTO audience_destinations (audience_id, destination_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`,
        [id, input.destinationIds],
      );
    }
    if (renamed) await client.query(`UPDATE audience_destinations SET synced_at = NULL WHERE audience_id = $1`, [id]);
    const before = rows[0];
    const changes = diffFields(
      { name: before.name, condition: before.condition, scheduleMinutes: before.schedule_minutes },
      {
        name: input.name ?? before.name,
        condition: input.condition ?? before.condition,
        scheduleMinutes: input.scheduleMinutes !== undefined ? input.scheduleMinutes : before.schedule_minutes,
      },
    );
    if (input.sourceIds) changes.sourceIds = { before: "changed", after: input.sourceIds };
    if (input.destinationIds) changes.destinationIds = { before: "changed", after: input.destinationIds };
    await recordAudit(client, {
      workspaceId,
      actor: opts.actor,
      action: "audience.update",
      resourceType: "audience",
      resourceId: id,
      changes,
    });
  }).catch(mapUniqueViolation(propertyName ?? ""));
  return getAudience({ workspaceId, id });
}

/** Deletes the audience, its membership and sync history. Identifies already sent stay delivered. */
export async function deleteAudience(opts: { workspaceId: string; actor: Actor; id: string }): Promise<void> {
  assertAudienceId(opts.id);
  await withTransaction(async (client) => {
    const { rows } = await client.query<{ name: string }>(`DELETE FROM audiences WHERE id = $1 AND workspace_id = $2 RETURNING name`, [
      opts.id,
      opts.workspaceId,
    ]);
    if (!rows[0]) throw notFound("Audience");
    await recordAudit(client, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "audience.delete",
      resourceType: "audience",
      resourceId: opts.id,
      changes: { name: { before: rows[0].name, after: null } },
    });
  });
}
