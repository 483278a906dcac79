import "server-only";
import type { Prisma } from "../platform/generated/prisma/client";
import { prisma } from "../platform/db";
import { AppError, assertUuid, notFound } from "../platform/errors";
import { recordAudit, type Actor, type FieldChanges } from "../audit/record";
import { diffFields } from "../audit/diff";
import { compilePlan, schemaProblem, storedRules } from "./compile";
import { fromSegmentPlan, toSegmentPlan } from "./segment-format";
import {
  PLAN_LIMITS,
  trackingPlanInputSchema,
  type TrackingPlanDto,
  type TrackingPlanInput,
  type TrackingPlanPatch,
  type TrackingPlanRule,
} from "./contract";
import { fieldErrorsFromIssues } from "../api/field-errors";

type Tx = Prisma.TransactionClient;
type Change = { workspaceId: string; actor: Actor };

const select = {
  id: true,
  name: true,
  rules: true,
  violations: true,
  unplanned: true,
  version: true,
  createdAt: true,
  updatedAt: true,
  sources: { select: { id: true }, orderBy: { createdAt: "asc" } },
} satisfies Prisma.TrackingPlanSelect;
type Row = Prisma.TrackingPlanGetPayload<{ select: typeof select }>;

function toDto(r: Row): TrackingPlanDto {
  return {
    id: r.id,
    name: r.name,
    rules: storedRules(r.rules).map((x) => ({ ...x, event: x.event ?? null })),
    violations: r.violations === "block" ? "block" : "flag",
    unplanned: r.unplanned === "flag" || r.unplanned === "block" ? r.unplanned : "allow",
    sourceIds: r.sources.map((s) => s.id),
    version: r.version,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** Each rule whose schema does not compile, as a field error at `rules.N.schema` with the compiler's reason. */
function assertRulesCompile(rules: TrackingPlanRule[]): void {
  const { problems } = compilePlan(rules);
  if (problems.length === 0) return;
  const fields: Record<string, string[]> = {};
  for (const p of problems) fields[`rules.${p.index}.schema`] = [p.message];
  throw new AppError("validation_failed", "Some schemas are invalid", fields);
}

async function assertSources(tx: Tx, workspaceId: string, sourceIds: string[]): Promise<void> {
  if (sourceIds.length === 0) return;
  const found = await tx.source.findMany({ where: { workspaceId, id: { in: sourceIds } }, select: { id: true } });
  const ok = new Set(found.map((s) => s.id));
  const fields: Record<string, string[]> = {};
  sourceIds.forEach((id, i) => {
    if (!ok.has(id)) fields[`sourceIds.${i}`] = ["No such source in this workspace"];
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);
}

/**
 * The plan's sources become exactly these: a source connected to another plan moves (a source has at
 * most one), and each plan it leaves gets a new version and its audit entry, its sources before →
 * after (docs/tracking-plans.md#versions), as if it had been edited.
 */
async function connectSources(tx: Tx, opts: Change, planId: string, sourceIds: string[]): Promise<void> {
  const losing = sourceIds.length
    ? await tx.source.findMany({
        where: { id: { in: sourceIds }, trackingPlanId: { not: null, notIn: [planId] } },
        select: { trackingPlanId: true },
        distinct: ["trackingPlanId"],
      })
    : [];
  const others = await Promise.all(losing.map((s) => findRow({ workspaceId: opts.workspaceId, id: s.trackingPlanId! }, tx)));
  await tx.source.updateMany({ where: { trackingPlanId: planId, id: { notIn: sourceIds } }, data: { trackingPlanId: null } });
  if (sourceIds.length) await tx.source.updateMany({ where: { id: { in: sourceIds } }, data: { trackingPlanId: planId } });
  for (const before of others) {
    await tx.trackingPlan.update({ where: { id: before.id }, data: { version: { increment: 1 } } });
    await audit(tx, opts, "tracking_plan.update", before, await findRow({ workspaceId: opts.workspaceId, id: before.id }, tx));
  }
}

/**
 * The audit entry's changes: names, modes and sources as before → after, and of the rules only the
 * ones added, removed or changed, keyed `type event` (docs/tracking-plans.md#versions).
 */
function planChanges(before: Row | null, after: Row | null): FieldChanges {
  const view = (r: Row | null) =>
    r && { name: r.name, violations: r.violations, unplanned: r.unplanned, sourceIds: r.sources.map((s) => s.id).sort() };
  const changes = diffFields(view(before), view(after));
  const byKey = (r: Row | null) =>
    new Map(
      storedRules(r?.rules).map((x) => [
        `${x.type}${x.event ? ` ${x.event}` : ""}`,
        JSON.stringify({ ...x, type: undefined, event: undefined }),
      ]),
    );
  const b = byKey(before);
  const a = byKey(after);
  const ruleBefore: Record<string, unknown> = {};
  const ruleAfter: Record<string, unknown> = {};
  for (const k of new Set([...b.keys(), ...a.keys()])) {
    if (b.get(k) === a.get(k)) continue;
    ruleBefore[k] = b.has(k) ? JSON.parse(b.get(k)!) : null;
    ruleAfter[k] = a.has(k) ? JSON.parse(a.get(k)!) : null;
  }
  if (Object.keys(ruleAfter).length) changes.rules = { before: ruleBefore, after: ruleAfter };
  if (before && after && before.version !== after.version) changes.version = { before: before.version, after: after.version };
  return changes;
}

const audit = (tx: Tx, opts: Change, action: string, before: Row | null, after: Row | null) =>
  recordAudit(tx, {
    workspaceId: opts.workspaceId,
    actor: opts.actor,
    action,
    resourceType: "tracking_plan",
    resourceId: (after ?? before)?.id,
    changes: planChanges(before, after),
  });

/** Plan writes of a workspace take its row lock, so the per-workspace ceiling holds under concurrent creates. */
async function inWorkspaceLock<T>(workspaceId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return prisma().$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId}::uuid FOR UPDATE`;
      return work(tx);
    },
    { maxWait: 15_000, timeout: 15_000 },
  );
}

async function findRow(opts: { workspaceId: string; id: string }, db: Tx = prisma()): Promise<Row> {
  assertUuid(opts.id, "Tracking plan");
  const row = await db.trackingPlan.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select });
  if (!row) throw notFound("Tracking plan");
  return row;
}

export async function listTrackingPlans(opts: { workspaceId: string }): Promise<TrackingPlanDto[]> {
  const rows = await prisma().trackingPlan.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "asc" }, select });
  return rows.map(toDto);
}

export async function getTrackingPlan(opts: { workspaceId: string; id: string }): Promise<TrackingPlanDto> {
  return toDto(await findRow(opts));
}

export async function createTrackingPlan(opts: Change & { input: TrackingPlanInput }): Promise<TrackingPlanDto> {
  const { input, workspaceId } = opts;
  assertRulesCompile(input.rules);
  const row = await inWorkspaceLock(workspaceId, async (tx) => {
    if ((await tx.trackingPlan.count({ where: { workspaceId } })) >= PLAN_LIMITS.perWorkspace)
      throw new AppError("conflict", `A workspace can have at most ${PLAN_LIMITS.perWorkspace} tracking plans; delete one first`);
    await assertSources(tx, workspaceId, input.sourceIds);
    const created = await tx.trackingPlan.create({
      data: {
        workspaceId,
        name: input.name,
        rules: input.rules as Prisma.InputJsonArray,
        violations: input.violations,
        unplanned: input.unplanned,
      },
      select: { id: true },
    });
    await connectSources(tx, opts, created.id, input.sourceIds);
    const row = await findRow({ workspaceId, id: created.id }, tx);
    await audit(tx, opts, "tracking_plan.create", null, row);
    return row;
  });
  return toDto(row);
}

/** Every change is a new version (docs/tracking-plans.md#versions); a patch that changes nothing changes no version. */
export async function updateTrackingPlan(opts: Change & { id: string; input: TrackingPlanPatch }): Promise<TrackingPlanDto> {
  const { input, workspaceId } = opts;
  if (input.rules) assertRulesCompile(input.rules);
  const row = await inWorkspaceLock(workspaceId, async (tx) => {
    const current = await findRow(opts, tx);
    if (input.sourceIds) {
      await assertSources(tx, workspaceId, input.sourceIds);
      await connectSources(tx, opts, current.id, input.sourceIds);
    }
    await tx.trackingPlan.update({
      where: { id: current.id },
      data: {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.rules !== undefined && { rules: input.rules as Prisma.InputJsonArray }),
        ...(input.violations !== undefined && { violations: input.violations }),
        ...(input.unplanned !== undefined && { unplanned: input.unplanned }),
      },
    });
    let updated = await findRow(opts, tx);
    if (Object.keys(planChanges(current, updated)).length === 0) return current;
    // The new version reaches every ingest process through its sources' routing version (a trigger).
    await tx.trackingPlan.update({ where: { id: current.id }, data: { version: { increment: 1 } } });
    updated = await findRow(opts, tx);
    await audit(tx, opts, "tracking_plan.update", current, updated);
    return updated;
  });
  return toDto(row);
}

export async function deleteTrackingPlan(opts: Change & { id: string }): Promise<void> {
  await prisma().$transaction(async (tx) => {
    const current = await findRow(opts, tx);
    // Its sources' plan goes by ON DELETE SET NULL, which bumps their routing version.
    await tx.trackingPlan.delete({ where: { id: current.id } });
    await audit(tx, opts, "tracking_plan.delete", current, null);
  });
}

export function checkSchema(schema: unknown): { ok: boolean; problem: string | null } {
  const problem = schemaProblem(schema);
  return { ok: problem === null, problem };
}

/**
 * A plan from Segment's tracking-plan shape (docs/tracking-plans.md#segment-format). The converted
 * rules go through the same contract and compiler as a plan written here; what has no equivalent is
 * refused with where it is, rather than left out unnoticed.
 */
export async function importTrackingPlan(
  opts: Change & {
    input: {
      plan: Record<string, unknown>;
      name?: string;
      violations: "flag" | "block";
      unplanned: "allow" | "flag" | "block";
      sourceIds: string[];
    };
  },
): Promise<TrackingPlanDto> {
  const imported = fromSegmentPlan(opts.input.plan);
  const parsed = trackingPlanInputSchema.safeParse({
    name: opts.input.name ?? imported.name ?? "Imported tracking plan",
    rules: imported.rules,
    violations: opts.input.violations,
    unplanned: opts.input.unplanned,
    sourceIds: opts.input.sourceIds,
  });
  if (!parsed.success) {
    const fields = fieldErrorsFromIssues(parsed.error.issues);
    throw new AppError("validation_failed", "The imported plan is invalid", fields);
  }
  if (imported.rules.length === 0) {
    const fields: Record<string, string[]> = {};
    for (const p of imported.problems) fields[`plan.${p.path}`] = [...(fields[`plan.${p.path}`] ?? []), p.message];
    throw new AppError(
      "validation_failed",
      "No rules found in the plan",
      Object.keys(fields).length ? fields : { plan: ["No rules found"] },
    );
  }
  return createTrackingPlan({ workspaceId: opts.workspaceId, actor: opts.actor, input: parsed.data });
}

export async function exportTrackingPlan(opts: { workspaceId: string; id: string }): Promise<Record<string, unknown>> {
  const plan = await getTrackingPlan(opts);
  return toSegmentPlan({ ...plan, rules: plan.rules.map((r) => ({ ...r, event: r.event ?? null })) });
}
