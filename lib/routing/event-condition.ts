import { z } from "zod";
import {
  MAX_CONDITIONS,
  MAX_DEPTH,
  NUMERIC_TEXT,
  OPERATORS,
  ORDER_OPERATORS,
  UNARY_OPERATORS,
  nodeByKeys,
  numericValue,
} from "../audiences/condition";

/**
 * Conditions on what is inside a call (docs/routing.md#conditions): the audience condition language
 * (lib/audiences/condition.ts — its operators, its value rules, its `{"all"}`/`{"any"}` groups and
 * their limits) with a leaf that names a field of the call by path, `properties.order.total`, and two
 * operators a router needs beside them, `in` and `starts_with`. Each shared operator means what the
 * audience SQL compiler (lib/audiences/compile.ts comparePredicate) makes it mean; this module is its
 * in-memory twin, since routing decides per call at intake, with no query to spare
 * (test/routing-conditions.int.test.ts runs both on the same cases).
 */

export const FILTER_OPERATORS = [...OPERATORS, "in", "starts_with"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** The fields a path starts at: the call's three objects, or one of its top-level values. */
export const FIELD_ROOTS = [
  "properties",
  "traits",
  "context",
  "event",
  "type",
  "userId",
  "anonymousId",
  "messageId",
  "name",
  "category",
  "groupId",
  "previousId",
  "channel",
  "timestamp",
] as const;
const OBJECT_ROOTS = ["properties", "traits", "context"];
export const MAX_PATH_SEGMENTS = 10;
export const MAX_IN_VALUES = 100;

/** `properties.order.total`: dot-separated names, starting at a FIELD_ROOTS entry. */
export const fieldPathSchema = z
  .string()
  .trim()
  .min(1, "Name a field, such as properties.plan")
  .max(300, "At most 300 characters")
  .superRefine((path, ctx) => {
    const parts = path.split(".");
    if (parts.some((p) => p === "")) ctx.addIssue({ code: "custom", message: "A path is names joined by single dots" });
    else if (!(FIELD_ROOTS as readonly string[]).includes(parts[0]))
      ctx.addIssue({ code: "custom", message: `A path starts at one of ${FIELD_ROOTS.join(", ")}` });
    else if (OBJECT_ROOTS.includes(parts[0]) && parts.length === 1)
      ctx.addIssue({ code: "custom", message: `Name a field inside ${parts[0]}, such as ${parts[0]}.plan` });
    else if (parts.length > MAX_PATH_SEGMENTS) ctx.addIssue({ code: "custom", message: `At most ${MAX_PATH_SEGMENTS} names in a path` });
  });

const scalar = z.union([z.string().max(1000, "At most 1000 characters"), z.number().finite(), z.boolean()], {
  message: "Use a text, a number or true/false",
});
type Scalar = z.infer<typeof scalar>;

export const fieldConditionSchema = z
  .object({
    field: fieldPathSchema,
    op: z.enum(FILTER_OPERATORS, { message: `Use one of ${FILTER_OPERATORS.join(", ")}` }),
    value: z
      .union([scalar, z.array(scalar).min(1, "List at least one value").max(MAX_IN_VALUES, `At most ${MAX_IN_VALUES} values`)])
      .optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    // The audience's value rules (condition.ts checkValue), and a list for `in` only.
    const listed = Array.isArray(c.value);
    if ((UNARY_OPERATORS as readonly string[]).includes(c.op)) return;
    if (c.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: "A value is required" });
    else if (c.op === "in" && !listed) ctx.addIssue({ code: "custom", path: ["value"], message: 'in compares with a list: ["a", "b"]' });
    else if (c.op !== "in" && listed) ctx.addIssue({ code: "custom", path: ["value"], message: "Only in takes a list of values" });
    else if ((ORDER_OPERATORS as readonly string[]).includes(c.op) && typeof c.value === "boolean")
      ctx.addIssue({ code: "custom", path: ["value"], message: "Compare with a number or a text, not true/false" });
  });

export type FieldCondition = z.infer<typeof fieldConditionSchema>;
export type FilterCondition = FieldCondition | { all: FilterCondition[] } | { any: FilterCondition[] };

const groupSchema = (k: "all" | "any") =>
  z.object({ [k]: z.array(filterConditionNode).min(1, "A group needs at least one condition") }).strict();

/** The node's keys pick its kind, so an error points at the field that is wrong (condition.ts nodeByKeys). */
const filterConditionNode: z.ZodType<FilterCondition> = nodeByKeys<FilterCondition>(
  (o) => ("all" in o ? groupSchema("all") : "any" in o ? groupSchema("any") : "field" in o ? fieldConditionSchema : null),
  'A condition is {"all": […]}, {"any": […]} or {"field": …, "op": …, "value": …}',
);

const children = (c: FilterCondition): FilterCondition[] | null => ("all" in c ? c.all : "any" in c ? c.any : null);

/** The audience limits: groups nest at most MAX_DEPTH deep, at most MAX_CONDITIONS comparisons. */
export const filterConditionSchema = filterConditionNode.superRefine((c, ctx) => {
  let count = 0;
  let deepest = 0;
  const walk = (node: FilterCondition, depth: number) => {
    deepest = Math.max(deepest, depth);
    const kids = children(node);
    if (kids) for (const k of kids) walk(k, depth + 1);
    else count++;
  };
  walk(c, 0);
  if (deepest > MAX_DEPTH) ctx.addIssue({ code: "custom", message: `Groups nest at most ${MAX_DEPTH} levels deep` });
  if (count > MAX_CONDITIONS) ctx.addIssue({ code: "custom", message: `At most ${MAX_CONDITIONS} conditions` });
});

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The value at `path` in the call, or undefined when any step is missing or not an object. */
export function valueAt(call: Record<string, Json>, path: string): Json {
  let x: Json = call;
  for (const name of path.split(".")) {
    if (!isObject(x) || !Object.hasOwn(x, name)) return undefined;
    x = x[name];
  }
  return x;
}

/** Postgres's `->>`: a string as itself, JSON null and missing as nothing, anything else as its JSON text. */
const asText = (x: Json): string | null => (x === undefined || x === null ? null : typeof x === "string" ? x : JSON.stringify(x));

const NUMERIC = new RegExp(NUMERIC_TEXT);
/** compile.ts asNumeric: a number, or a string that reads as one; else nothing. */
const asNumber = (x: Json): number | null =>
  typeof x === "number" ? x : typeof x === "string" && NUMERIC.test(x) && Number.isFinite(Number(x)) ? Number(x) : null;

/** JSON equality as jsonb's `=` has it (numbers by value, objects by content). */
function jsonEquals(a: Json, b: Json): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEquals(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k], b[k]));
  }
  return a === b;
}

/** comparePredicate's `equals`: the same JSON value, or the same text (so "100" equals 100). */
const equals = (x: Json, v: Scalar) => x !== undefined && (jsonEquals(x, v) || asText(x) === String(v));

const ORDER: Record<string, (a: number | string, b: number | string) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

/** One comparison, as comparePredicate compiles it: a missing field fails every operator but not_equals and not_exists. */
export function compare(x: Json, op: FilterOperator, value: FieldCondition["value"]): boolean {
  switch (op) {
    case "exists":
      return x !== undefined && x !== null;
    case "not_exists":
      return x === undefined || x === null;
    case "equals":
      return equals(x, value as Scalar);
    case "not_equals":
      return !equals(x, value as Scalar);
    case "in":
      return (value as Scalar[]).some((v) => equals(x, v));
    case "contains": {
      // Arrays contain an element; anything else contains a substring, case-insensitively.
      if (Array.isArray(x)) return x.some((e) => jsonEquals(e, value));
      const t = asText(x);
      if (t === null) return false;
      return t.toLowerCase().includes(String(value).toLowerCase());
    }
    case "starts_with": {
      const t = asText(x);
      return t !== null && !Array.isArray(x) && t.toLowerCase().startsWith(String(value).toLowerCase());
    }
    default: {
      const n = numericValue(value as Scalar);
      if (n !== null) {
        const xn = asNumber(x);
        return xn !== null && ORDER[op](xn, n);
      }
      // Texts compare as texts (ISO dates order correctly this way).
      return typeof x === "string" && ORDER[op](x, String(value));
    }
  }
}

/** Whether the call (its stored Segment-shaped payload) meets the condition. Pure. */
export function conditionHolds(condition: FilterCondition, call: Record<string, Json>): boolean {
  if ("all" in condition) return condition.all.every((c) => conditionHolds(c, call));
  if ("any" in condition) return condition.any.some((c) => conditionHolds(c, call));
  return compare(valueAt(call, condition.field), condition.op, condition.value);
}

/** A short reading of a leaf for messages: `properties.plan equals "pro"`. */
export const describeCondition = (c: FieldCondition): string =>
  (UNARY_OPERATORS as readonly string[]).includes(c.op) ? `${c.field} ${c.op}` : `${c.field} ${c.op} ${JSON.stringify(c.value)}`;
