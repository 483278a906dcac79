import { z } from "zod";

/**
 * The audience condition tree of docs/audiences.md#conditions, validated at every boundary (API, builder, worker)
 * by the same schema. Limits keep one audience from compiling into an unbounded query.
 */
export const OPERATORS = ["equals", "not_equals", "exists", "not_exists", "contains", "gt", "gte", "lt", "lte"] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators that compare against nothing. */
export const UNARY_OPERATORS: readonly Operator[] = ["exists", "not_exists"];
export const ORDER_OPERATORS: readonly Operator[] = ["gt", "gte", "lt", "lte"];

/**
 * A text that reads as a finite number. The SQL compiler (compile.ts) uses the same pattern in
 * Postgres, so the builder and the database agree on what compares numerically.
 */
export const NUMERIC_TEXT = "^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$";

/** A string that reads as a finite number ("100", " 2.5 ") compares numerically. */
export function numericValue(v: string | number | boolean): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "string" && new RegExp(NUMERIC_TEXT).test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export const MAX_DEPTH = 4;
export const MAX_CONDITIONS = 30;
export const MAX_WITHIN_DAYS = 3650;

const key = z.string().trim().min(1, "Name a property").max(200, "At most 200 characters");
const scalar = z.union([z.string().max(1000, "At most 1000 characters"), z.number().finite(), z.boolean()], {
  message: "Use a text, a number or true/false",
});
const op = z.enum(OPERATORS, { message: `Use one of ${OPERATORS.join(", ")}` });

function checkValue(c: { op: Operator; value?: string | number | boolean }, ctx: z.RefinementCtx) {
  if (UNARY_OPERATORS.includes(c.op)) return;
  if (c.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: "A value is required" });
  else if (ORDER_OPERATORS.includes(c.op) && typeof c.value === "boolean")
    ctx.addIssue({ code: "custom", path: ["value"], message: "Compare with a number or a text, not true/false" });
}

export const traitConditionSchema = z.object({ trait: key, op, value: scalar.optional() }).strict().superRefine(checkValue);
export const propertyFilterSchema = z.object({ property: key, op, value: scalar.optional() }).strict().superRefine(checkValue);

export const eventConditionSchema = z
  .object({
    event: z.string().trim().min(1, "Name an event").max(200, "At most 200 characters"),
    atLeast: z.number().int("Use a whole number").min(1, "At least 1").max(1_000_000, "At most 1,000,000"),
    withinDays: z.number().int("Use a whole number").min(1, "At least 1 day").max(MAX_WITHIN_DAYS, `At most ${MAX_WITHIN_DAYS} days`),
    where: z.array(propertyFilterSchema).max(10, "At most 10 property filters").default([]),
  })
  .strict();

export type TraitCondition = z.infer<typeof traitConditionSchema>;
export type PropertyFilter = z.infer<typeof propertyFilterSchema>;
// The input shape: `where` may be left out (it means no filters).
export type EventCondition = z.input<typeof eventConditionSchema>;
export type Group = { all: Condition[] } | { any: Condition[] };
export type Condition = TraitCondition | EventCondition | Group;

const groupSchema = (k: "all" | "any") =>
  z.object({ [k]: z.array(conditionSchema).min(1, "A group needs at least one condition") }).strict();

/**
 * A condition-tree node whose keys pick its kind (`pick` returns the schema for the object, or
 * null), so a mistake is reported at the field that is wrong rather than as "matches none of the
 * shapes"; `message` says what a node may be. Audiences and destination filters share it.
 */
export function nodeByKeys<T>(pick: (o: Record<string, unknown>) => z.ZodType | null, message: string): z.ZodType<T> {
  return z.lazy(() =>
    z.unknown().transform((v, ctx) => {
      const o = v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
      const schema = o ? pick(o) : null;
      if (!schema) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      const r = schema.safeParse(v);
      if (!r.success) {
        for (const issue of r.error.issues)
          ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as (string | number)[] });
        return z.NEVER;
      }
      return r.data as T;
    }),
  ) as unknown as z.ZodType<T>;
}

export const conditionSchema: z.ZodType<Condition> = nodeByKeys<Condition>(
  (o) =>
    "all" in o
      ? groupSchema("all")
      : "any" in o
        ? groupSchema("any")
        : "event" in o
          ? eventConditionSchema
          : "trait" in o
            ? traitConditionSchema
            : null,
  'A condition is {"all": […]}, {"any": […]}, an event condition or a trait comparison',
);

export const isGroup = (c: Condition): c is Group => "all" in c || "any" in c;
export const isEvent = (c: Condition): c is EventCondition => "event" in c;
export const isTrait = (c: Condition): c is TraitCondition => "trait" in c;
export const groupChildren = (c: Group): Condition[] => ("all" in c ? c.all : c.any);

/** Depth and size limits, checked once the shape is valid. */
export function conditionLimitsIssue(c: Condition): string | null {
  let count = 0;
  let deepest = 0;
  const walk = (node: Condition, depth: number) => {
    deepest = Math.max(deepest, depth);
    if (isGroup(node)) for (const child of groupChildren(node)) walk(child, depth + 1);
    else count++;
  };
  walk(c, 0);
  if (deepest > MAX_DEPTH) return `Groups nest at most ${MAX_DEPTH} levels deep`;
  if (count > MAX_CONDITIONS) return `At most ${MAX_CONDITIONS} conditions in one audience`;
  return null;
}

/** What the API accepts: the tree with its limits. */
export const audienceConditionSchema = conditionSchema.superRefine((c, ctx) => {
  const issue = conditionLimitsIssue(c);
  if (issue) ctx.addIssue({ code: "custom", message: issue });
});
