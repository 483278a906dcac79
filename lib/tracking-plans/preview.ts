import "server-only";
import { AppError } from "../platform/errors";
import { recentCalls } from "../destinations/recent-calls";
import { verdictOf } from "../tracking/plan-check";
import { compilePlan } from "./compile";
import type { PlanPreviewInput, PlanPreviewResult } from "./contract";

/** The preview shows this many of the calls it would flag or block, newest first. */
const EXAMPLES = 10;

/**
 * How a plan as typed (not saved) would judge the most recent calls of some sources: the editor's
 * "test against recent calls" (docs/tracking-plans.md#preview). Each call is checked as ingest checks
 * it (lib/tracking/plan-check.ts verdictOf), with the draft's rules and modes.
 */
export async function previewPlan(opts: { workspaceId: string; input: PlanPreviewInput }): Promise<PlanPreviewResult> {
  const { rules, sourceIds, limit, violations, unplanned } = opts.input;
  const { plan: compiled, problems } = compilePlan(rules);
  if (problems.length > 0) {
    const fields: Record<string, string[]> = {};
    for (const p of problems) fields[`rules.${p.index}.schema`] = [p.message];
    throw new AppError("validation_failed", "Some schemas are invalid", fields);
  }
  const calls = await recentCalls({ workspaceId: opts.workspaceId, sourceIds, limit });
  let flagged = 0;
  let blocked = 0;
  const examples: PlanPreviewResult["examples"] = [];
  for (const c of calls) {
    const v = verdictOf({ compiled, violations, unplanned }, { type: c.type, event: c.event, payload: c.payload });
    if (!v) continue;
    if (v.blocked) blocked += 1;
    else flagged += 1;
    if (examples.length < EXAMPLES)
      examples.push({ messageId: c.messageId, type: c.type, event: c.event, blocked: v.blocked, violations: v.violations });
  }
  return { considered: calls.length, conforming: calls.length - flagged - blocked, flagged, blocked, examples };
}
