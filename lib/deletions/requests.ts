import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import { pool, withTransaction } from "../platform/db";
import { AppError, assertUuid, isUuid, notFound } from "../platform/errors";
import { sendJob } from "../platform/queue";
import { resultOf, summarize, toDetail, type RequestRow } from "./dto";
import type {
  CreateDeletionInput,
  DeletionDetailDto,
  DeletionSummaryDto,
  DeletionsPage,
  ListDeletionsQuery,
  NotificationDto,
} from "./contract";

/** The detail lists this many notifications; totals cover all of them. */
export const NOTIFICATIONS_SHOWN = 500;

const COLUMNS = `id, user_ids AS "userIds", status, error, result, created_at AS "createdAt",
  started_at AS "startedAt", finished_at AS "finishedAt"`;

/** Stores the request `pending` and enqueues its job in the same transaction: no request without a job. */
export async function createDeletionRequest(opts: {
  workspaceId: string;
  actor: Actor;
  input: CreateDeletionInput;
}): Promise<DeletionSummaryDto> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<RequestRow>(
      `INSERT INTO deletion_requests (id, workspace_id, user_ids) VALUES (gen_random_uuid(), $1, $2) RETURNING ${COLUMNS}`,
      [opts.workspaceId, opts.input.userIds],
    );
    const row = rows[0];
    const jobId = await sendJob("deletion", { deletionRequestId: row.id }, { client });
    if (!jobId) throw new AppError("internal", "The deletion job could not be enqueued");
    await recordAudit(client, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "deletion.create",
      resourceType: "deletion",
      resourceId: row.id,
      changes: { userIds: { before: null, after: opts.input.userIds } },
    });
    return summarize(row);
  });
}

/** Newest first, keyset-paginated on (created_at, id). */
export async function listDeletionRequests(opts: { workspaceId: string } & ListDeletionsQuery): Promise<DeletionsPage> {
  const after = decodeCursor(opts.cursor);
  const { rows } = await pool().query<RequestRow>(
    `SELECT ${COLUMNS} FROM deletion_requests
      WHERE workspace_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [opts.workspaceId, after?.createdAt ?? null, after?.id ?? null, opts.limit + 1],
  );
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > opts.limit && last ? encodeCursor(last) : null;
  return { deletions: page.map(summarize), nextCursor };
}

/**
 * The request with its affected sources and its notifications' delivery state, read in one snapshot:
 * the delivery engine moves notices on meanwhile, and the list must agree with its totals.
 */
export async function getDeletionRequest(opts: { workspaceId: string; id: string }): Promise<DeletionDetailDto> {
  assertUuid(opts.id, "Deletion request");
  return withTransaction(
    async (client) => {
      const { rows } = await client.query<RequestRow>(`SELECT ${COLUMNS} FROM deletion_requests WHERE id = $1 AND workspace_id = $2`, [
        opts.id,
        opts.workspaceId,
      ]);
      const row = rows[0];
      if (!row) throw notFound("Deletion request");
      const sourceIds = [...new Set(Object.values(resultOf(row)?.users ?? {}).flatMap((u) => u.affectedSourceIds))];
      const sources = await client.query<{ id: string; name: string }>(
        "SELECT id, name FROM sources WHERE workspace_id = $1 AND id = ANY($2::uuid[])",
        [opts.workspaceId, sourceIds],
      );
      const notifications = await client.query<NotificationDto>(NOTIFICATIONS_SQL, [
        opts.workspaceId,
        row.id,
        row.userIds,
        NOTIFICATIONS_SHOWN,
      ]);
      const totals = await client.query<{ state: string; n: number }>(TOTALS_SQL, [opts.workspaceId, row.id, row.userIds]);
      return toDetail(row, { sources: sources.rows, notifications: notifications.rows, totals: totals.rows });
    },
    { snapshot: true },
  );
}

// Delete notices are found through the (workspace_id, user_id) index: the request's users (after erasure only their notices keep the user id; docs/architecture.md#message-indexes).
const NOTICES_FROM = "FROM messages m JOIN deliveries d ON d.message_row_id = m.id";
const NOTICES_WHERE = `WHERE m.workspace_id = $1 AND m.user_id = ANY($3::text[]) AND m.type = 'delete' AND m.origin = 'deletion' AND m.origin_ref = $2`;

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const NOTIFICATIONS_SQL = `
  SELECT d.id AS "deliveryId", m.id AS "messageRowId", m.message_id AS "messageId", m.user_id AS "userId",
         json_build_object('id', m.source_id, 'name', s.name) AS source,
         json_build_object('id', d.destination_id, 'name', dest.name) AS destination,
         d.state, d.attempt_count AS "attemptCount", d.last_status AS "lastStatus", d.last_error AS "lastError",
         ${iso("d.last_attempt_at")} AS "lastAttemptAt", ${iso("d.delivered_at")} AS "deliveredAt"
  ${NOTICES_FROM}
  LEFT JOIN sources s ON s.id = m.source_id
  LEFT JOIN destinations dest ON dest.id = d.destination_id
  ${NOTICES_WHERE}
  ORDER BY m.user_id, s.name, dest.name, d.id
  LIMIT $4`;

const TOTALS_SQL = `SELECT d.state, count(*)::int AS n ${NOTICES_FROM} ${NOTICES_WHERE} GROUP BY d.state`;

function encodeCursor(row: RequestRow): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString("base64url");
}

const isStoredTime = (v: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v) && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v;

function decodeCursor(cursor: string | undefined): { createdAt: string; id: string } | undefined {
  if (!cursor) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as [string, string];
    // Exactly what encodeCursor writes (toISOString of a stored time): Date.parse alone would take "1"
    // or year -271821, which Postgres then refuses (docs/management-api.md#errors).
    if (typeof createdAt === "string" && isStoredTime(createdAt) && typeof id === "string" && isUuid(id)) return { createdAt, id };
  } catch {}
  throw new AppError("validation_failed", "Some fields are invalid", { cursor: ["Invalid cursor"] });
}
