import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { MESSAGE_TYPES } from "../webhooks/payload";
import { PAYLOAD_SEARCH_MAX_DAYS } from "./limits";

/** The request log: attempts, a message's detail, replay and delivery stats (docs/management-api.md#resources). */

// `2026-11-21`, `2026-11-21T15:05`, `2026-11-21T15:05:50.123Z`, `…+02:00`: ISO 8601 and nothing else
// (Date.parse reads "' OR '1'='1" as 2001-01-01 and "-200000-01-01" as a year Postgres cannot store).
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** A real calendar date (no 30 February) in years 0001–9999, the range every layer stores alike. */
export function parseIsoDate(v: string): Date | null {
  const m = ISO_DATE.exec(v);
  if (!m) return null;
  const [, y, mo, d, h = "00", mi = "00", sec = "00"] = m;
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)));
  const sameFields =
    probe.getUTCFullYear() === Number(y) &&
    probe.getUTCMonth() === Number(mo) - 1 &&
    probe.getUTCDate() === Number(d) &&
    probe.getUTCHours() === Number(h) &&
    probe.getUTCMinutes() === Number(mi) &&
    probe.getUTCSeconds() === Number(sec);
  if (!sameFields || Number(y) < 1) return null;
  // Date-only and offset-less times are UTC; an offset is honoured.
  const date = new Date(m[7] || m[4] === undefined ? v : `${v}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

const isoDate = z
  .string()
  .max(40, "Not a date (use ISO 8601, e.g. 2026-11-21T15:05:50Z)")
  .transform((v, ctx) => {
    const date = parseIsoDate(v);
    if (!date) {
      ctx.addIssue({ code: "custom", message: "Not a date (use ISO 8601, e.g. 2026-11-21T15:05:50Z)" });
      return z.NEVER;
    }
    return date;
  });

/** How an attempt ended (docs/webhooks.md#outcomes). */
export const attemptOutcomeSchema = z.enum(["success", "retry", "failed"]);

/** At most this many matching messages (the newest in the window) have their attempts listed. */
export const PAYLOAD_SEARCH_MAX_MESSAGES = 1000;

/** A payload search names its window: `from` and `to`, at most PAYLOAD_SEARCH_MAX_DAYS apart. */
function checkSearchWindow(f: { q?: string; from?: Date; to?: Date }, ctx: z.RefinementCtx) {
  if (f.q === undefined) return;
  const need = `A payload search needs a time window: from and to, at most ${PAYLOAD_SEARCH_MAX_DAYS} days apart`;
  if (!f.from) ctx.addIssue({ code: "custom", path: ["from"], message: need });
  if (!f.to) ctx.addIssue({ code: "custom", path: ["to"], message: need });
  if (!f.from || !f.to) return;
  if (f.to <= f.from) ctx.addIssue({ code: "custom", path: ["to"], message: "Must be after from" });
  else if (f.to.getTime() - f.from.getTime() > PAYLOAD_SEARCH_MAX_DAYS * 86_400_000)
    ctx.addIssue({ code: "custom", path: ["to"], message: `A payload search covers at most ${PAYLOAD_SEARCH_MAX_DAYS} days` });
}

/** Filters of GET /api/attempts, also the `filter` of POST /api/messages/replay. */
const attemptFilterFields = z.object({
  destinationId: z.string().uuid("Not a destination id").optional(),
  outcome: attemptOutcomeSchema.optional(),
  statusClass: z.enum(["2xx", "3xx", "4xx", "5xx", "none"]).optional(),
  type: z.enum(MESSAGE_TYPES).optional(),
  userId: z.string().min(1).max(500).optional(),
  messageId: z.string().min(1).max(500).optional(),
  url: z.string().min(1).max(2048).optional(),
  /** An exact HTTP status (a failure group's "replay these"); statusClass for a range. */
  status: z.coerce.number().int("Use an HTTP status").min(100, "Use an HTTP status").max(599, "Use an HTTP status").optional(),
  /** How an attempt without a usable answer failed: timeout, connection, ssrf … (docs/webhooks.md#outcomes). */
  errorKind: z.string().min(1).max(40).optional(),
  /** The event name of track calls ("Order Completed"), exactly. */
  event: z.string().min(1).max(200).optional(),
  /**
   * Text inside the message's payload (any property, at any depth; letter case ignored), among the
   * messages received within from–to, which it requires (docs/dashboard.md#search-inside-payloads).
   */
  q: z.string().trim().min(2, "Search for at least 2 characters").max(200, "Search for at most 200 characters").optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  /** The attempts of one backfill's deliveries (docs/routing.md#backfill). */
  backfillId: z.string().uuid("Not a backfill id").optional(),
});
export const attemptFilterSchema = attemptFilterFields.superRefine(checkSearchWindow);

export const attemptListQuerySchema = attemptFilterFields
  .extend({
    // An attempt id: a bigint, so at most 18 digits are sure to fit (more would make Postgres fail).
    cursor: z
      .string()
      .regex(/^\d{1,18}$/, "Not a cursor")
      .optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .superRefine(checkSearchWindow);

export type AttemptFilter = z.infer<typeof attemptFilterSchema>;
export type AttemptListQuery = z.infer<typeof attemptListQuerySchema>;

export const attemptDtoSchema = z.object({
  id: z.string(),
  /** The delivery this attempt belongs to (a message has one per destination, plus one per replay). */
  deliveryId: z.string(),
  /** When that delivery is a replay: the delivery it re-sends (docs/webhooks.md#replay). */
  replayOf: z.string().nullable(),
  /** When that delivery was made by a backfill: its id (docs/routing.md#backfill). */
  backfillId: z.string().nullable(),
  destinationId: z.string(),
  /** null once the destination is deleted: the log keeps its attempts. */
  destinationName: z.string().nullable(),
  messageRowId: z.string(),
  messageId: z.string(),
  type: z.string(),
  /** The event name of a track call ("Order Completed"), from its message; null for other types and once erased. */
  event: z.string().nullable(),
  userId: z.string().nullable(),
  url: z.string(),
  attemptNumber: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number(),
  responseStatus: z.number().int().nullable(),
  errorKind: z.string().nullable(),
  errorText: z.string().nullable(),
  outcome: attemptOutcomeSchema,
  nextRetryAt: z.string().nullable(),
  /**
   * A batch's attempt (docs/request-shape.md#batches-in-the-request-log): the batch and how many events
   * it carried; null for one event's. Logged on the batch's lead: messageId and type are the lead's.
   */
  batch: z.object({ id: z.string(), events: z.number().int() }).nullable(),
});

/** An attempt with the request as sent and the response as received (bodies as stored, possibly cut). */
export const attemptDetailDtoSchema = attemptDtoSchema.extend({
  /**
   * Where the request went when that is not `url`: a URL template (`url` shows it as configured)
   * rendered for this call (docs/request-shape.md#url-templates). null when `url` itself was
   * requested, or nothing was sent.
   */
  sentTo: z.string().nullable(),
  /** The request's method: the destination's at the time (docs/request-shape.md#method). */
  method: z.enum(["POST", "PUT", "PATCH"]),
  requestHeaders: z.record(z.string(), z.string()),
  requestBody: z.string().nullable(),
  responseHeaders: z.record(z.string(), z.string()).nullable(),
  responseBody: z.string().nullable(),
  /** A batch's attempt: the events it carried, in the body's order (GET /api/attempts/{id} only; else null). */
  batchEvents: z
    .array(
      z.object({
        deliveryId: z.string(),
        messageRowId: z.string(),
        messageId: z.string(),
        type: z.string(),
        userId: z.string().nullable(),
      }),
    )
    .nullable(),
});

export const attemptPageDtoSchema = z.object({ attempts: z.array(attemptDtoSchema), nextCursor: z.string().nullable() });

export type AttemptDto = z.infer<typeof attemptDtoSchema>;
export type AttemptDetailDto = z.infer<typeof attemptDetailDtoSchema>;
export type AttemptPageDto = z.infer<typeof attemptPageDtoSchema>;

/**
 * How a message stands at one destination, from the latest delivery of its chain (the one ingest made,
 * then each replay): delivered; failed (its retry window ended, or the endpoint refused it); retrying
 * (attempted, another attempt is due); waiting (not attempted yet: queued, in an open batch, held for
 * order, throttled or paused) (docs/dashboard.md#the-log-by-message).
 */
export const messageStatusSchema = z.enum(["delivered", "retrying", "failed", "waiting"]);
export type MessageStatus = z.infer<typeof messageStatusSchema>;

/** Filters of GET /api/deliveries: the attempt filters (a message with such an attempt there) and how it stands there. */
const deliveryFilterFields = attemptFilterFields.extend({ state: messageStatusSchema.optional() });

export const deliveryListQuerySchema = deliveryFilterFields
  .extend({
    // "<created_at ISO>_<delivery id>" of the last row of the previous page
    cursor: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z_[0-9a-f-]{36}$/, "Not a cursor")
      .optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .superRefine(checkSearchWindow);
export type DeliveryListQuery = z.infer<typeof deliveryListQuerySchema>;

/** One row of the log by message: a message at one destination, with its replays folded in. */
export const deliveryRowDtoSchema = z.object({
  /** The delivery ingest (or a backfill, or a test-send) made: the row's identity, its replays hang off it. */
  id: z.string(),
  /** The chain's latest delivery (the row's own id when never replayed). */
  latestDeliveryId: z.string(),
  messageRowId: z.string(),
  /** null once erased by a deletion request (the message's row is kept, its fields are not). */
  messageId: z.string().nullable(),
  type: z.string().nullable(),
  event: z.string().nullable(),
  userId: z.string().nullable(),
  destinationId: z.string(),
  destinationName: z.string().nullable(),
  createdAt: z.string(),
  status: messageStatusSchema,
  /** Attempts over the whole chain (a batch's attempt counts for each event it carried). */
  attempts: z.number().int(),
  /** How many times it was replayed. */
  replays: z.number().int(),
  /** The endpoint's last answer: its status, or null without one (then lastError says why). */
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  /** When retrying: when the next attempt is due. */
  nextAttemptAt: z.string().nullable(),
  backfillId: z.string().nullable(),
  /** A test event sent from the destination page (docs/dashboard.md#test-sends). */
  testSend: z.boolean(),
});
export type DeliveryRowDto = z.infer<typeof deliveryRowDtoSchema>;
export const deliveryPageDtoSchema = z.object({ deliveries: z.array(deliveryRowDtoSchema), nextCursor: z.string().nullable() });
export type DeliveryPageDto = z.infer<typeof deliveryPageDtoSchema>;

/** GET /api/messages/{id}: the message as stored, its deliveries and every attempt, oldest first. */
export const messageDetailDtoSchema = z.object({
  message: z.object({
    id: z.string(),
    messageId: z.string(),
    type: z.string(),
    userId: z.string().nullable(),
    anonymousId: z.string().nullable(),
    sourceId: z.string().nullable(),
    receivedAt: z.string(),
    timestamp: z.string(),
    /** The normalised call as stored; null once erased by a deletion request. */
    payload: z.unknown(),
    /**
     * The stored call's text, every digit as received (`payload` is read as JavaScript reads it);
     * null once erased (docs/webhooks.md#numbers).
     */
    payloadText: z.string().nullable(),
    /**
     * Where it holds an integer beyond 2^53 that a default body writes as JavaScript does: the
     * field, its digits, and what is sent instead (at most 20).
     */
    roundedNumbers: z.array(z.object({ path: z.string(), digits: z.string(), sent: z.string() })),
  }),
  deliveries: z.array(
    z.object({
      id: z.string(),
      destinationId: z.string(),
      destinationName: z.string().nullable(),
      state: z.enum(["pending", "delivered", "failed"]),
      attemptCount: z.number().int(),
      lastError: z.string().nullable(),
      lastStatus: z.number().int().nullable(),
      nextAttemptAt: z.string().nullable(),
      deliveredAt: z.string().nullable(),
      /** A replay's link to the delivery it re-sends (null for the delivery ingest made) and its number in the chain. */
      replayOf: z.string().nullable(),
      replayNumber: z.number().int(),
      /** The batch it went in (docs/request-shape.md#batching); its attempts are among `attempts`. */
      batchId: z.string().nullable(),
      /**
       * Held behind an earlier pending message of its user (docs/webhooks.md#ordering): since when, and
       * that message (its row id and messageId; null when nothing holds it any more); null when not held.
       */
      held: z.object({ since: z.string(), byMessageRowId: z.string().nullable(), byMessageId: z.string().nullable() }).nullable(),
      /** When the hold limit let it go, sent without waiting for earlier ones (docs/webhooks.md#hold-limit); else null. */
      holdReleasedAt: z.string().nullable(),
    }),
  ),
  attempts: z.array(attemptDetailDtoSchema),
});
export type MessageDetailDto = z.infer<typeof messageDetailDtoSchema>;

/**
 * POST /api/messages/replay (docs/webhooks.md#replay). Either `ids` (message row ids: each of their
 * destinations where the message did not succeed — and, when `includeDelivered` is true, a
 * deliberate "send it again" where it did), or `filter` (the /api/attempts filters: the messages and
 * destinations with a matching attempt whose latest delivery failed). Each replay is a new delivery
 * linked to the one it re-sends; in `every` mode it goes only to the URLs that never answered 2xx
 * (unless `includeDelivered`). A message still being delivered somewhere is not replayed there.
 */
export const replaySchema = z
  .object({
    ids: z.array(z.string().uuid("Not a message id")).min(1, "Give at least one id").max(1000, "At most 1000 ids").optional(),
    filter: attemptFilterSchema.optional(),
    includeDelivered: z.boolean().default(false),
    /**
     * docs/webhooks.md#ordering: at a destination that orders per user, the replay takes its place in
     * its user's order (after what is pending now, before what arrives later); false (default): it goes at once.
     */
    ordered: z.boolean().default(false),
    dryRun: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if (!v.ids === !v.filter) ctx.addIssue({ code: "custom", path: ["ids"], message: "Give either ids or filter" });
  });
export type ReplayInput = z.infer<typeof replaySchema>;

/**
 * A dry run: `count`, the replays it would make, and what the selection holds that it would not send:
 * `stillRetrying` (their latest delivery is still pending: replayable once it fails) and `delivered`
 * (sent again only by ids with includeDelivered). Else `replayed`, the new deliveries made.
 */
export const replayResultSchema = z.union([
  z.object({ count: z.number().int(), stillRetrying: z.number().int(), delivered: z.number().int() }),
  z.object({ replayed: z.number().int() }),
]);
export type ReplayResult = z.infer<typeof replayResultSchema>;

// Stats: attempts of a time window by outcome, with latency percentiles.

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const MAX_BUCKETS = 1000;

/** "30s", "5m", "1h", "1d" → seconds. */
export function parseBucket(spec: string): number | null {
  const m = /^(\d{1,4})([smhd])$/.exec(spec);
  if (!m) return null;
  return Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
}

const NICE_BUCKETS = [10, 30, 60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400];

/** The smallest round bucket that splits the window into at most ~`target` points. */
export function autoBucketSeconds(windowMs: number, target = 60): number {
  const wanted = windowMs / 1000 / target;
  return NICE_BUCKETS.find((b) => b >= wanted) ?? Math.ceil(wanted / 86400) * 86400;
}

export const deliveryStatsQuerySchema = z
  .object({
    destinationId: z.uuid("Use a destination id").optional(),
    from: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    to: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    bucket: z
      .string()
      .refine((b) => (parseBucket(b) ?? 0) >= 10, "Use a bucket like 30s, 5m, 1h or 1d (at least 10s)")
      .optional(),
  })
  .transform((q, ctx) => {
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 86_400_000);
    if (from >= to) ctx.addIssue({ code: "custom", path: ["from"], message: "from must be before to" });
    const bucketSeconds = q.bucket ? parseBucket(q.bucket)! : autoBucketSeconds(to.getTime() - from.getTime());
    if ((to.getTime() - from.getTime()) / 1000 / bucketSeconds > MAX_BUCKETS) {
      ctx.addIssue({ code: "custom", path: ["bucket"], message: `At most ${MAX_BUCKETS} buckets: use a larger bucket or a shorter range` });
    }
    return { destinationId: q.destinationId, from, to, bucketSeconds };
  });

export const destinationStatsQuerySchema = z
  .object({
    from: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    to: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
  })
  .transform((q) => {
    const to = q.to ? new Date(q.to) : new Date();
    return { from: q.from ? new Date(q.from) : new Date(to.getTime() - 86_400_000), to };
  });

export type DeliveryStatsQuery = z.infer<typeof deliveryStatsQuerySchema>;
export type DestinationStatsQuery = z.infer<typeof destinationStatsQuerySchema>;

export const statsRowSchema = z.object({
  total: z.number().int(),
  success: z.number().int(),
  retry: z.number().int(),
  failed: z.number().int(),
  /** success / total attempts, 0–1; null when there were none. */
  successRate: z.number().nullable(),
  /** Attempt durations in ms; null when there were none. */
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
});

/**
 * Events (a message to one destination) with an attempt in the window, by the state of their latest
 * delivery now: an event retried five times and then delivered — or failed and replayed into success
 * — is one delivered event, not attempts of which one succeeded (docs/dashboard.md#delivery-overview).
 */
export const eventStatsSchema = z.object({
  total: z.number().int(),
  delivered: z.number().int(),
  /** Still being delivered: waiting for its next retry. */
  pending: z.number().int(),
  failed: z.number().int(),
  /** Needed more than one attempt in the window (retries and replays), whatever the end. */
  retried: z.number().int(),
});
export type EventStats = z.infer<typeof eventStatsSchema>;

export const deliveryStatsDtoSchema = z.object({
  destinationId: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  bucketSeconds: z.number().int(),
  totals: statsRowSchema,
  events: eventStatsSchema,
  /** One row per bucket from `from`, empty buckets included. */
  series: z.array(statsRowSchema.extend({ start: z.string() })),
});

export const destinationStatsDtoSchema = statsRowSchema
  .pick({ total: true, success: true, retry: true, failed: true, successRate: true })
  .extend({ destinationId: z.string(), events: eventStatsSchema });

export const failureGroupsQuerySchema = z
  .object({
    destinationId: z.uuid("Use a destination id").optional(),
    from: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
    to: z.iso.datetime({ offset: true, error: "Use an ISO 8601 time" }).optional(),
  })
  .transform((q) => {
    const to = q.to ? new Date(q.to) : new Date();
    return { destinationId: q.destinationId, from: q.from ? new Date(q.from) : new Date(to.getTime() - 86_400_000), to };
  });
export type FailureGroupsQuery = z.infer<typeof failureGroupsQuerySchema>;

/**
 * Failed and retried attempts of a window grouped by reason: destination, URL, the status the endpoint
 * answered or, without an answer, the kind of error. The biggest groups first.
 */
export const failureGroupDtoSchema = z.object({
  destinationId: z.string(),
  destinationName: z.string().nullable(),
  url: z.string(),
  responseStatus: z.number().int().nullable(),
  errorKind: z.string().nullable(),
  /** Attempts in the group. */
  attempts: z.number().int(),
  /** Distinct messages among them. */
  messages: z.number().int(),
  /**
   * Those messages by how they stand at the destination now (the latest delivery of each): failed ones
   * are what "Replay these" sends; still retrying ones are retried on their own; some were delivered since.
   */
  failed: z.number().int(),
  retrying: z.number().int(),
  delivered: z.number().int(),
  lastAt: z.string(),
  /** The newest attempt's error text. */
  lastError: z.string().nullable(),
});
export type FailureGroupDto = z.infer<typeof failureGroupDtoSchema>;

export type StatsRow = z.infer<typeof statsRowSchema>;
export type DeliveryStatsDto = z.infer<typeof deliveryStatsDtoSchema>;
export type DestinationStatsDto = z.infer<typeof destinationStatsDtoSchema>;

export const requestLogEndpoints = {
  attempts: endpoint({
    method: "GET",
    path: "/api/attempts",
    access: "viewer",
    summary: "The request log, newest first, filtered and keyset-paged (pass nextCursor as cursor)",
    query: attemptListQuerySchema,
    response: attemptPageDtoSchema,
  }),
  deliveries: endpoint({
    method: "GET",
    path: "/api/deliveries",
    access: "viewer",
    summary:
      "The request log by message: one row per message and destination (its replays folded in) with its status, attempts and last answer, newest first, keyset-paged",
    query: deliveryListQuerySchema,
    response: deliveryPageDtoSchema,
  }),
  attempt: endpoint({
    method: "GET",
    path: "/api/attempts/{id}",
    access: "viewer",
    summary: "One attempt with the request as sent and the response as received",
    response: attemptDetailDtoSchema,
  }),
  message: endpoint({
    method: "GET",
    path: "/api/messages/{id}",
    access: "viewer",
    summary: "One message as stored, with its deliveries and every attempt, oldest first",
    response: messageDetailDtoSchema,
  }),
  replay: endpoint({
    method: "POST",
    path: "/api/messages/replay",
    access: "admin",
    summary:
      "Re-send messages where they did not succeed (optionally also where they did), by ids or by an attempt filter; each replay is a new delivery linked to its original",
    body: replaySchema,
    response: replayResultSchema,
  }),
  deliveryStats: endpoint({
    method: "GET",
    path: "/api/stats/deliveries",
    access: "viewer",
    summary: "Attempts of a time window by outcome, with latency p50/p95/p99, in total and per time bucket",
    query: deliveryStatsQuerySchema,
    response: deliveryStatsDtoSchema,
  }),
  destinationStats: endpoint({
    method: "GET",
    path: "/api/stats/destinations",
    access: "viewer",
    summary: "Per destination: attempts by outcome and success rate in a time window (default: the last 24 h)",
    query: destinationStatsQuerySchema,
    response: z.object({ destinations: z.array(destinationStatsDtoSchema) }),
  }),
  failureGroups: endpoint({
    method: "GET",
    path: "/api/stats/failures",
    access: "viewer",
    summary:
      "Failed and retried attempts of a time window (default: the last 24 h) grouped by destination, URL and status or error kind, biggest first (at most 20)",
    query: failureGroupsQuerySchema,
    response: z.object({ groups: z.array(failureGroupDtoSchema) }),
  }),
};
