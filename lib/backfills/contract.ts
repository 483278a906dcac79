import { z } from "zod";
import { endpoint } from "../api/endpoint";

/**
 * Backfills (docs/routing.md#backfill): a destination sent the stored calls of some of its sources
 * received in a window, through its current filter. Browser-safe: the API, the dashboard panel and
 * the OpenAPI document share these schemas.
 */

/** At most this many sources per backfill (a destination takes at most 20 per source, 50 per workspace). */
export const MAX_BACKFILL_SOURCES = 50;

export const BACKFILL_STATES = ["running", "finished", "cancelled", "failed"] as const;
export type BackfillState = (typeof BACKFILL_STATES)[number];

const isoTime = z.string().datetime({ offset: true, message: "Must be a date and time (ISO 8601)" });

export const backfillInputSchema = z
  .object({
    sourceIds: z
      .array(z.string().uuid("Must be a source id"))
      .min(1, "Choose at least one source")
      .max(MAX_BACKFILL_SOURCES, `At most ${MAX_BACKFILL_SOURCES} sources`),
    /** Calls received at or after this time… */
    from: isoTime,
    /** …and before this one; absent: now. */
    to: isoTime.optional(),
    /** Only count what it would send (`{count}`); nothing is created. */
    dryRun: z.boolean().default(false),
    /** Also send calls that already have a delivery to this destination (a live one, another backfill's, a replay). */
    resend: z.boolean().default(false),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.to !== undefined && Date.parse(v.to) <= Date.parse(v.from))
      ctx.addIssue({ code: "custom", path: ["to"], message: "Must be after the start of the window" });
  });
export type BackfillInput = z.input<typeof backfillInputSchema>;

export const backfillDryRunSchema = z.object({
  dryRun: z.literal(true),
  /** how many calls it would send: the same count a backfill started now sends (docs/routing.md#backfill) */
  count: z.number().int(),
  from: z.string(),
  to: z.string(),
});
export type BackfillDryRun = z.infer<typeof backfillDryRunSchema>;

export const backfillDtoSchema = z.object({
  id: z.string(),
  destinationId: z.string(),
  sourceIds: z.array(z.string()),
  from: z.string(),
  to: z.string(),
  resend: z.boolean(),
  state: z.enum(BACKFILL_STATES),
  /** the calls it sends: its dry run's count when it started */
  total: z.number().int(),
  /** calls handed to the engine as deliveries so far */
  queued: z.number().int(),
  /** of those, deliveries settled: delivered or failed for good */
  done: z.number().int(),
  /** settled deliveries per second since it started; null before the first */
  ratePerSecond: z.number().nullable(),
  /** seconds left at that rate while running; null when unknown or ended */
  etaSeconds: z.number().int().nullable(),
  startedBy: z.string(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
});
export type BackfillDto = z.infer<typeof backfillDtoSchema>;

const itemPath = { path: "/api/destinations/{id}/backfills/{backfillId}" } as const;

export const backfillEndpoints = {
  create: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/backfills",
    access: "admin",
    summary:
      "Send the destination the stored calls of some of its sources received in a window, through its current filter: a dry run answers the count, otherwise a backfill starts in the background",
    description:
      "Each call goes at most once per backfill, and by default not at all when it already has a delivery to the destination (`resend: true` sends those too). The window must lie within message retention. Deliveries are ordinary ones, marked with the backfill's id, on a lane behind live traffic (docs/routing.md#backfill).",
    body: backfillInputSchema,
    response: z.union([backfillDryRunSchema, backfillDtoSchema]),
  }),
  list: endpoint({
    method: "GET",
    path: "/api/destinations/{id}/backfills",
    access: "viewer",
    summary: "The destination's backfills, newest first (at most 20)",
    response: z.object({ backfills: z.array(backfillDtoSchema) }),
  }),
  get: endpoint({ method: "GET", ...itemPath, access: "viewer", summary: "One backfill and its progress", response: backfillDtoSchema }),
  cancel: endpoint({
    method: "DELETE",
    ...itemPath,
    access: "admin",
    summary: "Cancel a running backfill: no further calls are queued; deliveries already queued finish",
    response: backfillDtoSchema,
  }),
};
