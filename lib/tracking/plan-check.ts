import "server-only";
import { pool } from "../platform/db";
import { NumberLiteral } from "../platform/exact-json";
import { checkCall, compilePlan, storedRules, type CompiledPlan, type Violation } from "../tracking-plans/compile";
import type { NormalisedMessage } from "./normalise";
import type { TrackingSource } from "./write-key";

/**
 * A source's tracking plan at ingest (docs/tracking-plans.md#enforcement): compiled once per plan
 * version in each process, never per call. The version to use comes with the source from the
 * write-key cache, whose entry the ingest statement re-checks through the source's routing version
 * (a plan change bumps it), so a changed plan applies from the next call in every process.
 */
type LoadedPlan = {
  version: number;
  compiled: CompiledPlan;
  violations: "flag" | "block";
  unplanned: "allow" | "flag" | "block";
};

/** Compiled plans by plan id, at most this many (the oldest dropped first); one version each. */
export const PLAN_CACHE_SIZE = 200;
const cache = new Map<string, Promise<LoadedPlan | null>>();

async function loadPlan(id: string): Promise<LoadedPlan | null> {
  const { rows } = await pool().query<{ rules: unknown; version: number; violations: string; unplanned: string }>({
    name: "tracking-plan-by-id",
    text: "SELECT rules, version, violations, unplanned FROM tracking_plans WHERE id = $1",
    values: [id],
  });
  const row = rows[0];
  if (!row) return null;
  // Saved plans always compile (the API refuses any that does not); a rule that stopped compiling
  // (a newer ajv) is left out rather than failing every call.
  const { plan } = compilePlan(storedRules(row.rules));
  return {
    version: row.version,
    compiled: plan,
    violations: row.violations === "block" ? "block" : "flag",
    unplanned: row.unplanned === "flag" || row.unplanned === "block" ? row.unplanned : "allow",
  };
}

/** The source's plan compiled at (at least) the version the source names; concurrent calls share one compile. */
async function planOf(ref: { id: string; version: number }): Promise<LoadedPlan | null> {
  const hit = cache.get(ref.id);
  if (hit) {
    const plan = await hit;
    if (plan && plan.version >= ref.version) return plan;
    if (cache.get(ref.id) === hit) cache.delete(ref.id);
  }
  if (!cache.has(ref.id) && cache.size >= PLAN_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  const loading = cache.get(ref.id) ?? loadPlan(ref.id);
  cache.set(ref.id, loading);
  loading.catch(() => cache.delete(ref.id));
  return loading;
}

const hasNumberLiteral = (v: unknown): boolean => {
  if (v instanceof NumberLiteral) return true;
  if (Array.isArray(v)) return v.some(hasNumberLiteral);
  if (v && typeof v === "object") return Object.values(v).some(hasNumberLiteral);
  return false;
};

const plainNumbers = (v: unknown): unknown => {
  if (v instanceof NumberLiteral) return Number(v.literal);
  if (Array.isArray(v)) return v.map(plainNumbers);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainNumbers(x)]));
  return v;
};

/** What the plan decided for one message: its violations (unplanned included) and whether it is blocked. */
export type PlanVerdict = { violations: Violation[]; blocked: boolean };

/** The metric's event label: a planned track event's name, else bounded words (docs/operations.md#metrics). */
export function violationEventLabel(m: { type: string; event: string | null }, verdict: PlanVerdict): string {
  if (m.type !== "track") return m.type;
  return verdict.violations[0]?.rule === "unplanned" ? "(unplanned)" : (m.event ?? "");
}

/**
 * Each accepted message's verdict under the source's plan, in the messages' order; null when the
 * source has no plan (nothing to record). Flag records violations and routes; block records and does
 * not route (docs/tracking-plans.md#modes).
 */
export async function checkAgainstPlan(source: TrackingSource, messages: NormalisedMessage[]): Promise<(PlanVerdict | null)[] | null> {
  if (!source.plan || messages.length === 0) return null;
  const plan = await planOf(source.plan);
  if (!plan) return null;
  return messages.map((m) => verdictOf(plan, m));
}

/**
 * One call's verdict under a compiled plan and its modes (ingest, and the editor's preview against
 * recent calls): null when it conforms or is not checked.
 */
export function verdictOf(
  plan: Pick<LoadedPlan, "compiled" | "violations" | "unplanned">,
  m: { type: string; event: string | null; payload: Record<string, unknown> },
): PlanVerdict | null {
  let r = checkCall(plan.compiled, { type: m.type, event: m.event, name: m.payload.name, payload: m.payload });
  // An integer beyond 2^53 is kept as a NumberLiteral (docs/tracking-api.md#fidelity), which a
  // schema would see as an object: a call that failed is checked again with plain numbers.
  if (r && r.violations.length > 0 && hasNumberLiteral(m.payload)) {
    r = checkCall(plan.compiled, {
      type: m.type,
      event: m.event,
      name: m.payload.name,
      payload: plainNumbers(m.payload) as Record<string, unknown>,
    });
  }
  if (!r) return null;
  const unplanned = r.unplanned && plan.unplanned !== "allow";
  if (r.violations.length === 0 && !unplanned) return null;
  const violations = unplanned
    ? [{ path: "/event", rule: "unplanned", message: `The plan has no rule for the track event ${JSON.stringify(m.event)}` }]
    : r.violations;
  const blocked = unplanned ? plan.unplanned === "block" : plan.violations === "block";
  return { violations, blocked };
}
