import "server-only";
import { noticeOptions, sendWorkspaceNotices, type WorkspaceNotice } from "../alerts/notify";
import { pool } from "../platform/db";
import { logger } from "../platform/logger";

/**
 * New kinds of violation, told once (docs/tracking-plans.md#notices): each minute, after the endpoint
 * alerts, every plan's sources' violating calls since the plan was last read are grouped into kinds —
 * (event, rule, path), the event as the violations view names it — and the kinds the plan had never
 * seen are recorded (tracking_violation_kinds) and told to the workspace's alert channels, one notice
 * per plan. The read is bounded by the partial index messages_violations_idx (only violating calls
 * have entries) and lags `LAG_MS` behind now, so that a call committed a little after its
 * received_at is not skipped.
 */

const LAG_MS = 10_000;
/** Kinds a notice lists by name; the rest are counted. */
const LISTED = 10;

const NEW_KINDS = `
WITH plan AS (
  SELECT p.id, p.workspace_id, p.name, coalesce(p.violations_scanned_at, p.created_at) AS since,
         ARRAY(SELECT s.id FROM sources s WHERE s.tracking_plan_id = p.id) AS sources
    FROM tracking_plans p WHERE p.id = $1 FOR UPDATE
), seen AS (
  SELECT DISTINCT CASE WHEN m.type = 'track' THEN coalesce(m.event, '') ELSE m.type END AS event,
         coalesce(v->>'rule', '') AS rule, coalesce(v->>'path', '') AS path, min(m.received_at) OVER w AS first_seen_at
    FROM plan, messages m CROSS JOIN LATERAL json_array_elements(m.violations) v
   WHERE m.source_id = ANY(plan.sources) AND m.received_at > plan.since AND m.received_at <= $2 AND m.violations IS NOT NULL
  WINDOW w AS (PARTITION BY CASE WHEN m.type = 'track' THEN coalesce(m.event, '') ELSE m.type END, v->>'rule', v->>'path')
), added AS (
  INSERT INTO tracking_violation_kinds (plan_id, event, rule, path, first_seen_at)
  SELECT $1, event, rule, path, first_seen_at FROM seen
  ON CONFLICT DO NOTHING
  RETURNING event, rule, path, first_seen_at
), scanned AS (
  UPDATE tracking_plans SET violations_scanned_at = $2 WHERE id = $1
)
SELECT plan.workspace_id, plan.name, added.event, added.rule, added.path
  FROM plan LEFT JOIN added ON true
 ORDER BY added.first_seen_at, added.event, added.rule, added.path`;

export type NewViolationKinds = {
  planId: string;
  workspaceId: string;
  planName: string;
  kinds: { event: string; rule: string; path: string }[];
};

/** "track Order Completed: /properties/total breaks type" — a kind in words. */
const describeKind = (k: { event: string; rule: string; path: string }) =>
  k.rule === "unplanned" ? `${k.event}: not in the plan` : `${k.event}: ${k.path || "the call"} breaks \`${k.rule}\``;

export function violationNotice(n: NewViolationKinds): Omit<WorkspaceNotice, "workspaceId" | "path"> {
  const listed = n.kinds.slice(0, LISTED).map((k) => `- ${describeKind(k)}`);
  const more = n.kinds.length > LISTED ? [`- and ${n.kinds.length - LISTED} more`] : [];
  const count = n.kinds.length === 1 ? "a new kind of violation" : `${n.kinds.length} new kinds of violation`;
  return {
    subject: `New tracking plan violations: ${n.planName}`,
    text: [`Eventrail: tracking plan "${n.planName}" saw ${count}:`, ...listed, ...more].join("\n"),
  };
}

/**
 * Reads each plan (of one workspace, for tests) up to `now` - `lagMs` (LAG_MS; a test whose calls are
 * committed before it asks gives 0), records and tells its new kinds.
 * Plans are read one at a time, each in its own transaction (its row locked, so two workers' ticks
 * never tell a kind twice).
 */
export async function noticeNewViolationKinds(
  opts: { now?: Date; lagMs?: number; workspaceId?: string; smtpUrl?: string | null } = {},
): Promise<NewViolationKinds[]> {
  const until = new Date((opts.now ?? new Date()).getTime() - (opts.lagMs ?? LAG_MS));
  const { rows: plans } = await pool().query<{ id: string }>(
    `SELECT p.id FROM tracking_plans p WHERE ($1::uuid IS NULL OR p.workspace_id = $1)
        AND EXISTS (SELECT 1 FROM sources s WHERE s.tracking_plan_id = p.id)`,
    [opts.workspaceId ?? null],
  );
  const found: NewViolationKinds[] = [];
  for (const { id } of plans) {
    const c = await pool().connect();
    try {
      await c.query("BEGIN");
      const { rows } = await c.query<{ workspace_id: string; name: string; event: string | null; rule: string; path: string }>(NEW_KINDS, [
        id,
        until,
      ]);
      await c.query("COMMIT");
      const kinds = rows.filter((r) => r.event !== null).map((r) => ({ event: r.event!, rule: r.rule, path: r.path }));
      if (rows[0] && kinds.length > 0) found.push({ planId: id, workspaceId: rows[0].workspace_id, planName: rows[0].name, kinds });
    } catch (err) {
      await c.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }
  if (found.length > 0) {
    logger().info({ plans: found.length, kinds: found.reduce((n, f) => n + f.kinds.length, 0) }, "new tracking plan violations");
    await sendWorkspaceNotices(
      found.map((f) => ({ workspaceId: f.workspaceId, ...violationNotice(f), path: `/tracking-plans/${f.planId}` })),
      noticeOptions(opts.smtpUrl),
    );
  }
  return found;
}
