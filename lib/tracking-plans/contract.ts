import { z } from "zod";
import { endpoint } from "../api/endpoint";

/**
 * Tracking plans (docs/tracking-plans.md): per call type and event name a JSON Schema, what happens to
 * a call that breaks one, and to a track event the plan does not name. Browser-safe: whether a schema
 * compiles is the server's answer (lib/tracking-plans/compile.ts), field by field as `rules.3.schema`.
 */

export const PLAN_TYPES = ["track", "identify", "group", "page", "screen"] as const;
export const VIOLATION_MODES = ["flag", "block"] as const;
export const UNPLANNED_MODES = ["allow", "flag", "block"] as const;

/** A workspace's plans, and one plan's rules (docs/tracking-plans.md#limits). */
export const PLAN_LIMITS = { perWorkspace: 20, rules: 1000, bodyBytes: 4 * 1024 * 1024 } as const;

const name = z.string().trim().min(1, "Name is required").max(100, "At most 100 characters");

export const trackingPlanRuleSchema = z
  .object({
    type: z.enum(PLAN_TYPES, { error: `One of ${PLAN_TYPES.join(", ")}` }),
    /** track: the event; page/screen: the name (null: any name without a rule of its own); identify/group: null */
    event: z.string().trim().min(1, "Name the event").max(200, "At most 200 characters").nullable().default(null),
    description: z.string().max(2000, "At most 2000 characters").optional(),
    schema: z.record(z.string(), z.unknown(), { error: 'A JSON Schema object, like {"type": "object"}' }),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.type === "track" && r.event === null) ctx.addIssue({ code: "custom", path: ["event"], message: "A track rule names its event" });
    if ((r.type === "identify" || r.type === "group") && r.event !== null)
      ctx.addIssue({
        code: "custom",
        path: ["event"],
        message: `An ${r.type} rule has no event name: it checks every ${r.type} call's traits`,
      });
  });
export type TrackingPlanRule = z.infer<typeof trackingPlanRuleSchema>;

const rules = z
  .array(trackingPlanRuleSchema)
  .max(PLAN_LIMITS.rules, `At most ${PLAN_LIMITS.rules} rules`)
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((r, i) => {
      const key = `${r.type}\u0000${r.event ?? ""}`;
      const first = seen.get(key);
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [i, "event"],
          message: `Rule ${first + 1} already covers this ${r.type}${r.event ? ` (${r.event})` : ""}`,
        });
      else seen.set(key, i);
    });
  });

const sourceIds = z.array(z.string().uuid("Unknown source")).max(200, "At most 200 sources");

export const trackingPlanInputSchema = z
  .object({
    name,
    rules: rules.default([]),
    violations: z.enum(VIOLATION_MODES).default("flag"),
    unplanned: z.enum(UNPLANNED_MODES).default("allow"),
    sourceIds: sourceIds.default([]),
  })
  .strict();
export type TrackingPlanInput = z.infer<typeof trackingPlanInputSchema>;

export const trackingPlanPatchSchema = z
  .object({
    name: name.optional(),
    rules: rules.optional(),
    violations: z.enum(VIOLATION_MODES).optional(),
    unplanned: z.enum(UNPLANNED_MODES).optional(),
    sourceIds: sourceIds.optional(),
  })
  .strict();
export type TrackingPlanPatch = z.infer<typeof trackingPlanPatchSchema>;

export const trackingPlanDtoSchema = z.object({
  id: z.string(),
  name: z.string(),
  rules: z.array(
    z.object({
      type: z.enum(PLAN_TYPES),
      event: z.string().nullable(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()),
    }),
  ),
  violations: z.enum(VIOLATION_MODES),
  unplanned: z.enum(UNPLANNED_MODES),
  sourceIds: z.array(z.string()),
  /** bumped by every change */
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TrackingPlanDto = z.infer<typeof trackingPlanDtoSchema>;

/** One JSON Schema checked as the editor types it. */
export const validateSchemaSchema = z.object({ schema: z.unknown() }).strict();
export const schemaCheckSchema = z.object({ ok: z.boolean(), problem: z.string().nullable() });

/**
 * A plan in Segment's tracking-plan shape (docs/tracking-plans.md#segment-format): the Config API's
 * `{display_name, rules: {events, identify, group}}`, optionally under `tracking_plan`, or the Public
 * API's `{name, rules: [{type, key, jsonSchema}]}`. Each rule's JSON Schema describes the whole call,
 * its `properties.properties` (or `properties.traits`) being what Eventrail checks.
 */
export const segmentPlanSchema = z.record(z.string(), z.unknown(), { error: "A Segment tracking plan is a JSON object" });
export const importPlanSchema = z
  .object({
    plan: segmentPlanSchema,
    /** the plan's name here; Segment's display_name / name when not given */
    name: name.optional(),
    violations: z.enum(VIOLATION_MODES).default("flag"),
    unplanned: z.enum(UNPLANNED_MODES).default("allow"),
    sourceIds: sourceIds.default([]),
  })
  .strict();

export const planViolationsQuerySchema = z.object({
  hours: z.coerce.number().int().min(1, "At least 1 hour").max(168, "At most 168 hours (7 days)").default(24),
});
export const planViolationsDtoSchema = z.object({
  since: z.string(),
  hours: z.number().int(),
  /** per event and rule, the most frequent first: calls with such a violation, of them blocked, and per hour */
  groups: z.array(
    z.object({
      event: z.string(),
      rule: z.string(),
      calls: z.number().int(),
      blocked: z.number().int(),
      byHour: z.array(z.object({ hour: z.string(), calls: z.number().int() })),
    }),
  ),
});
export type PlanViolationsDto = z.infer<typeof planViolationsDtoSchema>;

/** The editor's "test against recent calls": the plan as typed, on the newest calls of some sources. */
export const planPreviewSchema = z
  .object({
    rules,
    violations: z.enum(VIOLATION_MODES).default("flag"),
    unplanned: z.enum(UNPLANNED_MODES).default("allow"),
    sourceIds: z.array(z.string().uuid("Not a source id")).max(100, "At most 100 sources"),
    limit: z.number().int("A whole number").min(1, "At least 1").max(1000, "At most 1000").default(200),
  })
  .strict();
export type PlanPreviewInput = z.infer<typeof planPreviewSchema>;
const violationSchema = z.object({ path: z.string(), rule: z.string(), message: z.string() });
export const planPreviewResultSchema = z.object({
  /** the newest calls of the sources looked at (at most `limit`), and how the plan would judge them */
  considered: z.number().int(),
  conforming: z.number().int(),
  flagged: z.number().int(),
  blocked: z.number().int(),
  /** the newest calls it would flag or block (at most 10), with their violations */
  examples: z.array(
    z.object({
      messageId: z.string(),
      type: z.string(),
      event: z.string().nullable(),
      blocked: z.boolean(),
      violations: z.array(violationSchema),
    }),
  ),
});
export type PlanPreviewResult = z.infer<typeof planPreviewResultSchema>;

const id = { path: "/api/tracking-plans/{id}" } as const;

export const trackingPlanEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/tracking-plans",
    access: "viewer",
    summary: "List the workspace's tracking plans",
    response: z.object({ trackingPlans: z.array(trackingPlanDtoSchema) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/tracking-plans",
    access: "admin",
    summary: `Create a tracking plan: JSON Schemas per call type and event (draft 2020-12 or draft-07), its modes and connected sources (a source has at most one plan; connecting it here moves it). At most ${PLAN_LIMITS.perWorkspace} per workspace`,
    body: trackingPlanInputSchema,
    maxBodyBytes: PLAN_LIMITS.bodyBytes,
    response: trackingPlanDtoSchema,
    status: 201,
  }),
  get: endpoint({ method: "GET", ...id, access: "viewer", summary: "One tracking plan", response: trackingPlanDtoSchema }),
  update: endpoint({
    method: "PATCH",
    ...id,
    access: "admin",
    summary: "Change some of a plan; fields not given stay as they are. Every change is a new version, in effect on the next call",
    body: trackingPlanPatchSchema,
    maxBodyBytes: PLAN_LIMITS.bodyBytes,
    response: trackingPlanDtoSchema,
  }),
  remove: endpoint({ method: "DELETE", ...id, access: "admin", summary: "Delete a tracking plan; its sources are checked by no plan" }),
  violations: endpoint({
    method: "GET",
    path: "/api/tracking-plans/{id}/violations",
    access: "viewer",
    summary:
      "The plan's violations over the last `hours` (default 24, at most 168): per event and rule, the calls that had one, how many were blocked, and per hour",
    query: planViolationsQuerySchema,
    response: planViolationsDtoSchema,
  }),
  preview: endpoint({
    method: "POST",
    path: "/api/tracking-plans/preview",
    access: "viewer",
    summary:
      "Test a plan as typed against the newest calls of some sources: how many it would pass, flag and block, and the newest flagged or blocked ones with their violations",
    body: planPreviewSchema,
    maxBodyBytes: PLAN_LIMITS.bodyBytes,
    response: planPreviewResultSchema,
  }),
  validateSchema: endpoint({
    method: "POST",
    path: "/api/tracking-plans/validate-schema",
    access: "viewer",
    summary: "Check one JSON Schema as a plan would compile it: ok, or the compiler's reason",
    body: validateSchemaSchema,
    response: schemaCheckSchema,
  }),
  import: endpoint({
    method: "POST",
    path: "/api/tracking-plans/import",
    access: "admin",
    summary: "Create a tracking plan from one in Segment's tracking-plan shape (Config API or Public API rules)",
    body: importPlanSchema,
    maxBodyBytes: PLAN_LIMITS.bodyBytes,
    response: trackingPlanDtoSchema,
    status: 201,
  }),
  export: endpoint({
    method: "GET",
    path: "/api/tracking-plans/{id}/export",
    access: "viewer",
    summary: "A plan in Segment's Config API tracking-plan shape (display_name, rules.events with rules.properties)",
    response: segmentPlanSchema,
  }),
};
