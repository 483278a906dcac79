import "server-only";
import { prisma } from "../platform/db";
import { assertUuid, notFound } from "../platform/errors";
import type { PlanViolationsDto } from "./contract";

/** Groups of (event, rule) a view lists at most, the largest first. */
const MAX_GROUPS = 200;

/**
 * A plan's violations over the last `hours`, per event and rule and per hour, from the stored
 * violating calls of its current sources (index messages_violations_idx, partial: only violating
 * calls have entries). `event` names as the metric does: a track call's event, else its type
 * (docs/tracking-plans.md#violations).
 */
export async function listPlanViolations(opts: { workspaceId: string; id: string; hours: number }): Promise<PlanViolationsDto> {
  assertUuid(opts.id, "Tracking plan");
  const plan = await prisma().trackingPlan.findFirst({
    where: { id: opts.id, workspaceId: opts.workspaceId },
    select: { sources: { select: { id: true } } },
  });
  if (!plan) throw notFound("Tracking plan");
  const sourceIds = plan.sources.map((s) => s.id);
  const since = new Date(Date.now() - opts.hours * 3_600_000);
  if (sourceIds.length === 0) return { since: since.toISOString(), hours: opts.hours, groups: [] };
  const rows = await prisma().$queryRaw<{ event: string; rule: string; hour: Date; calls: number; blocked: number }[]>`
    SELECT CASE WHEN m.type = 'track' THEN coalesce(m.event, '') ELSE m.type END AS event, v->>'rule' AS rule,
           date_trunc('hour', m.received_at) AS hour, count(DISTINCT m.id)::int AS calls,
           count(DISTINCT m.id) FILTER (WHERE m.blocked)::int AS blocked
      FROM messages m CROSS JOIN LATERAL json_array_elements(m.violations) v
     WHERE m.source_id = ANY(${sourceIds}::uuid[]) AND m.received_at >= ${since} AND m.violations IS NOT NULL
     GROUP BY 1, 2, 3`;
  const groups = new Map<string, PlanViolationsDto["groups"][number]>();
  for (const r of rows) {
    const key = `${r.event}\u0000${r.rule}`;
    const g = groups.get(key) ?? { event: r.event, rule: r.rule, calls: 0, blocked: 0, byHour: [] };
    g.calls += r.calls;
    g.blocked += r.blocked;
    g.byHour.push({ hour: r.hour.toISOString(), calls: r.calls });
    groups.set(key, g);
  }
  const list = [...groups.values()].sort((a, b) => b.calls - a.calls || a.event.localeCompare(b.event) || a.rule.localeCompare(b.rule));
  for (const g of list) g.byHour.sort((a, b) => (a.hour < b.hour ? -1 : 1));
  return { since: since.toISOString(), hours: opts.hours, groups: list.slice(0, MAX_GROUPS) };
}
