import "server-only";
import type { TrackingPlanRule } from "./contract";

/**
 * Segment's tracking-plan shape, both ways (docs/tracking-plans.md#segment-format). Pure.
 *
 * A Segment rule's JSON Schema describes the whole call: what Eventrail checks is its
 * `properties.properties` (track, page, screen) or `properties.traits` (identify, group), carrying
 * the outer `$schema` (Segment writes draft-07) so the draft stays the same.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export type ImportedPlan = { name: string | null; rules: TrackingPlanRule[]; problems: { path: string; message: string }[] };

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** The part of a whole-call schema that a rule checks, or null when the Segment rule leaves it open. */
function innerSchema(whole: unknown, field: "properties" | "traits"): Obj | null {
  if (!isObj(whole)) return null;
  const props = whole.properties;
  if (!isObj(props)) return null;
  const inner = props[field];
  if (!isObj(inner)) return null;
  const out: Obj = { ...inner };
  if (typeof whole.$schema === "string" && out.$schema === undefined) out.$schema = whole.$schema;
  // Definitions referenced as #/definitions/… live at the outer schema's root: keep them reachable.
  for (const k of ["definitions", "$defs"] as const) if (isObj(whole[k]) && out[k] === undefined) out[k] = whole[k];
  return out;
}

const PUBLIC_API_TYPES: Record<string, TrackingPlanRule["type"] | undefined> = {
  TRACK: "track",
  IDENTIFY: "identify",
  GROUP: "group",
  PAGE: "page",
  SCREEN: "screen",
};

/**
 * Eventrail rules from a Segment plan: the Config API's `{display_name, rules: {events: [{name,
 * rules}], identify, group}}` (optionally wrapped in `tracking_plan`), or the Public API's `{name,
 * rules: [{type, key, jsonSchema}]}`. A `global` / COMMON rule (context checks) has no Eventrail
 * equivalent and is reported, as is anything else left out.
 */
export function fromSegmentPlan(input: Obj): ImportedPlan {
  const plan = isObj(input.tracking_plan)
    ? input.tracking_plan
    : isObj(input.data) && isObj(input.data.trackingPlan)
      ? input.data.trackingPlan
      : input;
  const name =
    typeof plan.display_name === "string"
      ? plan.display_name
      : typeof plan.name === "string" && !plan.name.startsWith("workspaces/")
        ? plan.name
        : null;
  const rules: TrackingPlanRule[] = [];
  const problems: ImportedPlan["problems"] = [];
  const add = (type: TrackingPlanRule["type"], event: string | null, whole: unknown, description?: unknown) => {
    const schema = innerSchema(whole, type === "identify" || type === "group" ? "traits" : "properties") ?? {
      type: "object",
      ...(isObj(whole) && typeof whole.$schema === "string" ? { $schema: whole.$schema } : {}),
    };
    rules.push({ type, event, schema, ...(typeof description === "string" && description !== "" ? { description } : {}) });
  };

  if (Array.isArray(plan.rules)) {
    plan.rules.forEach((r: unknown, i) => {
      const left = (message: string) => problems.push({ path: `rules.${i}`, message });
      if (!isObj(r)) {
        left("Not a rule object; left out");
        return;
      }
      const type = PUBLIC_API_TYPES[String(r.type).toUpperCase()];
      if (!type) {
        left(`A ${String(r.type)} rule has no Eventrail equivalent; left out`);
        return;
      }
      const key = typeof r.key === "string" && r.key !== "" ? r.key : null;
      if (type === "track" && key === null) {
        left("A TRACK rule without a key; left out");
        return;
      }
      add(type, type === "identify" || type === "group" ? null : key, r.jsonSchema, r.description);
    });
    return { name, rules, problems };
  }
  if (!isObj(plan.rules))
    return { name, rules, problems: [{ path: "rules", message: "No rules found: expected rules.events or a rules list" }] };
  const r = plan.rules;
  if (Array.isArray(r.events)) {
    r.events.forEach((e, i) => {
      if (!isObj(e) || typeof e.name !== "string" || e.name.trim() === "") {
        problems.push({ path: `rules.events.${i}`, message: "An event without a name; left out" });
        return;
      }
      add("track", e.name.trim(), e.rules, e.description);
    });
  }
  for (const type of ["identify", "group"] as const) if (isObj(r[type]) && Object.keys(r[type]).length > 0) add(type, null, r[type]);
  // Eventrail's own page and screen lists (toSegmentPlan), which Segment's shape lacks.
  for (const type of ["page", "screen"] as const) {
    const list = r[type];
    if (!Array.isArray(list)) continue;
    for (const e of list) if (isObj(e)) add(type, typeof e.name === "string" && e.name !== "" ? e.name : null, e.rules, e.description);
  }
  if (isObj(r.global) && Object.keys(r.global).length > 0)
    problems.push({ path: "rules.global", message: "Global (context) rules have no Eventrail equivalent; left out" });
  return { name, rules, problems };
}

/** A whole-call schema (Segment's shape) around a rule's checked part. */
function wholeSchema(rule: TrackingPlanRule): Obj {
  const field = rule.type === "identify" || rule.type === "group" ? "traits" : "properties";
  const { $schema, ...inner } = rule.schema;
  return {
    $schema: typeof $schema === "string" ? $schema : DRAFT_07,
    type: "object",
    properties: { [field]: inner },
    ...(Array.isArray(inner.required) && inner.required.length > 0 ? { required: [field] } : {}),
  };
}

/**
 * A plan in the Config API's shape: track rules as `rules.events`, identify and group traits as
 * `rules.identify` / `rules.group`. Page and screen rules, which that shape lacks, go in `rules.page`
 * / `rules.screen` lists Segment ignores and fromSegmentPlan reads back.
 */
export function toSegmentPlan(plan: { name: string; rules: TrackingPlanRule[]; updatedAt: string; createdAt: string }): Obj {
  const events = plan.rules
    .filter((r) => r.type === "track")
    .map((r) => ({ name: r.event, description: r.description ?? "", version: 1, rules: wholeSchema(r) }));
  const one = (type: "identify" | "group") => {
    const r = plan.rules.find((x) => x.type === type);
    return r ? wholeSchema(r) : {};
  };
  const named = (type: "page" | "screen") =>
    plan.rules.filter((r) => r.type === type).map((r) => ({ name: r.event, description: r.description ?? "", rules: wholeSchema(r) }));
  return {
    display_name: plan.name,
    rules: { events, identify: one("identify"), group: one("group"), page: named("page"), screen: named("screen") },
    create_time: plan.createdAt,
    update_time: plan.updatedAt,
  };
}
