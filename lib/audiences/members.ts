import "server-only";
import { pool, withTransaction } from "../platform/db";
import { AppError, notFound } from "../platform/errors";
import { assertAudienceId } from "./audience-id";
import { assertOwnedRefs } from "./audiences";
import { compileAudienceQuery } from "./compile";
import type { AudienceMembersPage, AudiencePreview, ListMembersQuery, PreviewAudienceInput } from "./contract";

/** The builder counts on every edit: bounded so a heavy condition cannot hold the database. */
const PREVIEW_TIMEOUT_MS = 10_000;

/** POST /api/audiences/preview: how many users the condition matches now. */
export async function previewAudience(opts: { workspaceId: string; input: PreviewAudienceInput }): Promise<AudiencePreview> {
  await assertOwnedRefs(pool(), opts.workspaceId, { sourceIds: opts.input.sourceIds });
  const q = compileAudienceQuery(opts.input.condition, { workspaceId: opts.workspaceId, sourceIds: opts.input.sourceIds });
  try {
    return await withTransaction(async (client) => {
      await client.query(`SET LOCAL statement_timeout = ${PREVIEW_TIMEOUT_MS}`);
      const { rows } = await client.query<{ count: number }>(`SELECT count(*)::int AS count FROM (${q.text}) c`, q.values);
      return { count: rows[0].count };
    });
  } catch (err) {
    if ((err as { code?: string }).code === "57014")
      throw new AppError("unavailable", `Counting took longer than ${PREVIEW_TIMEOUT_MS / 1000} s; try a narrower condition`);
    throw err;
  }
}

/**
 * GET /api/audiences/{id}/members: members by userId (keyset on it), optionally those whose userId
 * or email trait contains `q` (case-insensitive), with their profile traits.
 */
export async function listAudienceMembers(opts: {
  workspaceId: string;
  audienceId: string;
  query: ListMembersQuery;
}): Promise<AudienceMembersPage> {
  assertAudienceId(opts.audienceId);
  const { rows: a } = await pool().query(`SELECT 1 FROM audiences WHERE id = $1 AND workspace_id = $2`, [
    opts.audienceId,
    opts.workspaceId,
  ]);
  if (a.length === 0) throw notFound("Audience");
  const { q, cursor, limit } = opts.query;
  const { rows } = await pool().query<{ user_id: string; since: Date; traits: Record<string, unknown> | null }>(
    `SELECT m.user_id, m.since, p.traits FROM audience_members m
     LEFT JOIN profiles p ON p.workspace_id = $2 AND p.user_id = m.user_id
     WHERE m.audience_id = $1
       AND ($3::text IS NULL OR strpos(lower(m.user_id), lower($3)) > 0 OR strpos(lower(p.traits ->> 'email'), lower($3)) > 0)
       AND ($4::text IS NULL OR m.user_id > $4)
     ORDER BY m.user_id LIMIT $5`,
    [opts.audienceId, opts.workspaceId, q || null, cursor ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    members: page.map((r) => ({ userId: r.user_id, since: r.since.toISOString(), traits: r.traits ?? {} })),
    nextCursor: rows.length > limit ? page[page.length - 1].user_id : null,
  };
}
