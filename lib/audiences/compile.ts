import "server-only";
import {
  NUMERIC_TEXT,
  ORDER_OPERATORS,
  groupChildren,
  isEvent,
  isGroup,
  isTrait,
  numericValue,
  type Condition,
  type EventCondition,
  type Operator,
  type PropertyFilter,
  type TraitCondition,
} from "./condition";

/**
 * Condition tree → one parameterised SQL query returning the distinct `user_id`s of the members.
 *
 * Nothing from the tree is spliced into the SQL text: trait and property names, values, event
 * names and counts all travel as bind parameters (`traits -> $3::text`). The text only varies in
 * shape (which operators, how many), never in content.
 *
 * Sets, not rows: a trait comparison scans `profiles` (then only users with data in the audience's
 * sources are kept, see inSourcesPredicate); an event condition groups the audience's sources' track calls per user (anonymous calls count for the user their anonymousId was joined
 * to by identify/alias); AND/OR groups are INTERSECT/UNION of their children's sets. Sibling trait
 * comparisons of one group become one scan of `profiles` with AND/OR, so the common "plan = pro AND
 * country = DE" costs one pass.
 */
export type CompiledQuery = { text: string; values: unknown[] };

/** $1 is the workspace; the audience's sources and the tree's values follow as they are needed. */
export class Params {
  readonly values: unknown[];
  private sourcesRef: string | null = null;
  constructor(
    workspaceId: string,
    private readonly sourceIds: string[],
  ) {
    this.values = [workspaceId];
  }
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
  /** One parameter for the sources, shared by every event condition (unused ones would have no type). */
  sources(): string {
    this.sourcesRef ??= this.add(this.sourceIds, "uuid[]");
    return this.sourcesRef;
  }
}

/** A JSON value as numeric when it is a number or a numeric string, else NULL (never an error). */
const asNumeric = (x: string) =>
  `(CASE jsonb_typeof(${x}) WHEN 'number' THEN (${x})::numeric WHEN 'string' THEN CASE WHEN (${x} #>> '{}') ~ '${NUMERIC_TEXT}' THEN (${x} #>> '{}')::numeric END END)`;

const SQL_ORDER: Record<string, string> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

/** One comparison of `base -> key` (a jsonb object: traits or event properties); never NULL. */
export function comparePredicate(p: Params, base: string, c: { key: string; op: Operator; value?: string | number | boolean }): string {
  const k = p.add(c.key, "text");
  const x = `(${base} -> ${k})`;
  const xText = `(${base} ->> ${k})`;
  const equals = () => `(${x} = ${p.add(JSON.stringify(c.value), "jsonb")} OR ${xText} = ${p.add(String(c.value), "text")})`;
  let sql: string;
  switch (c.op) {
    case "equals":
      sql = equals();
      break;
    case "not_equals":
      return `NOT coalesce(${equals()}, false)`;
    case "exists":
      return `coalesce(jsonb_typeof(${x}), 'null') <> 'null'`;
    case "not_exists":
      return `coalesce(jsonb_typeof(${x}), 'null') = 'null'`;
    case "contains": {
      // Arrays contain an element; anything else contains a substring, case-insensitively.
      const element = p.add(JSON.stringify(c.value), "jsonb");
      const text = p.add(String(c.value), "text");
      sql = `(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} @> jsonb_build_array(${element}) ELSE strpos(lower(${xText}), lower(${text})) > 0 END)`;
      break;
    }
    default: {
      if (!ORDER_OPERATORS.includes(c.op)) throw new Error(`unknown operator ${c.op}`);
      const n = numericValue(c.value!);
      sql =
        n !== null
          ? `${asNumeric(x)} ${SQL_ORDER[c.op]} ${p.add(String(n), "numeric")}`
          : // Texts compare as texts: ISO dates order correctly this way.
            `(jsonb_typeof(${x}) = 'string' AND ${xText} ${SQL_ORDER[c.op]} ${p.add(String(c.value), "text")})`;
    }
  }
  return `coalesce(${sql}, false)`;
}

function traitScan(p: Params, traits: TraitCondition[], joiner: "AND" | "OR"): string {
  const preds = traits.map((t) => comparePredicate(p, "p.traits", { key: t.trait, op: t.op, value: t.value }));
  return `SELECT p.user_id FROM profiles p WHERE p.workspace_id = $1::uuid AND (${preds.join(` ${joiner} `)})`;
}

function eventSet(p: Params, e: EventCondition): string {
  // Parameters are numbered in reading order.
  const sources = p.sources();
  const event = p.add(e.event, "text");
  const days = p.add(e.withinDays, "int");
  const filters = (e.where ?? []).map((f: PropertyFilter) =>
    comparePredicate(p, "(m.payload -> 'properties')::jsonb", { key: f.property, op: f.op, value: f.value }),
  );
  return [
    "SELECT coalesce(m.user_id, il.user_id) AS user_id FROM messages m",
    "LEFT JOIN identity_links il ON m.user_id IS NULL AND il.workspace_id = m.workspace_id AND il.anonymous_id = m.anonymous_id",
    `WHERE m.workspace_id = $1::uuid AND m.source_id = ANY(${sources}) AND m.type = 'track' AND m.event = ${event}`,
    `AND m.timestamp >= now() - make_interval(days => ${days})`,
    ...filters.map((f) => `AND ${f}`),
    `GROUP BY 1 HAVING coalesce(m.user_id, il.user_id) IS NOT NULL AND count(*) >= ${p.add(e.atLeast, "int")}`,
  ].join(" ");
}

function compileSet(p: Params, node: Condition): string {
  if (isTrait(node)) return traitScan(p, [node], "AND");
  if (isEvent(node)) return eventSet(p, node);
  if (!isGroup(node)) throw new Error("unknown condition node");
  const all = "all" in node;
  const children = groupChildren(node);
  const traits = children.filter(isTrait);
  const parts: string[] = [];
  if (traits.length > 0) parts.push(traitScan(p, traits, all ? "AND" : "OR"));
  for (const child of children) if (!isTrait(child)) parts.push(compileSet(p, child));
  if (parts.length === 1) return parts[0];
  return parts.map((s) => `(${s})`).join(all ? " INTERSECT " : " UNION ");
}

function hasTrait(node: Condition): boolean {
  if (isTrait(node)) return true;
  return isGroup(node) && groupChildren(node).some(hasTrait);
}

/**
 * The scope rule (docs/audiences.md#scope): members are users with data in the audience's sources —
 * a call of theirs, or an anonymous call under an anonymousId joined to them. Event sets hold only
 * such users already; a trait comparison scans every profile of the workspace (traits come from the
 * unified profile), so a tree with one needs this. Two index probes per candidate:
 * messages (workspace_id, user_id, …) and identity_links (workspace_id, user_id) + messages (workspace_id, anonymous_id).
 */
function inSourcesPredicate(p: Params): string {
  const sources = p.sources();
  return [
    `(EXISTS (SELECT 1 FROM messages m WHERE m.workspace_id = $1::uuid AND m.user_id = s.user_id AND m.source_id = ANY(${sources}))`,
    ` OR EXISTS (SELECT 1 FROM identity_links il JOIN messages m ON m.workspace_id = il.workspace_id AND m.anonymous_id = il.anonymous_id`,
    ` WHERE il.workspace_id = $1::uuid AND il.user_id = s.user_id AND m.user_id IS NULL AND m.source_id = ANY(${sources})))`,
  ].join("");
}

/**
 * `SELECT user_id FROM (…) s`: the audience's members. Each appears once without a DISTINCT:
 * profiles are unique per user, event sets are grouped by user, INTERSECT/UNION remove duplicates.
 */
export function compileAudienceQuery(condition: Condition, opts: { workspaceId: string; sourceIds: string[] }): CompiledQuery {
  const p = new Params(opts.workspaceId, opts.sourceIds);
  const set = compileSet(p, condition);
  const scope = hasTrait(condition) ? ` WHERE ${inSourcesPredicate(p)}` : "";
  return { text: `SELECT s.user_id FROM (${set}) s${scope}`, values: p.values };
}
