import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { MAX_ROTATION_GRACE_MINUTES } from "./rotation";

/** Sources: the write keys applications send to the Tracking API with (docs/management-api.md#resources). */

const name = z.string().trim().min(1, "Name is required").max(100, "At most 100 characters");

export const createSourceSchema = z.object({ name });

export const rotateKeySchema = z
  .object({
    graceMinutes: z
      .number("A number of minutes")
      .int("Whole minutes")
      .min(0, "At least 0 (the old key stops at once)")
      .max(MAX_ROTATION_GRACE_MINUTES, `At most ${MAX_ROTATION_GRACE_MINUTES} minutes (7 days)`)
      .default(0),
  })
  .strict();
export type RotateKeyInput = z.infer<typeof rotateKeySchema>;

export const updateSourceSchema = z.object({ name: name.optional(), enabled: z.boolean().optional() }).strict();

/**
 * Whether the source's messages are being rejected (docs/dashboard.md#sources): clients are not
 * told when a message of a batch is rejected, so this is where the operator sees it.
 */
export const sourceHealthSchema = z.object({
  /** rejecting: at least 10 % of the recent calls were rejected; idle: no call in the window */
  state: z.enum(["healthy", "rejecting", "idle", "disabled"]),
  /** The source's most recent calls within the window (at most 200), and how many of them were rejected. */
  recent: z.object({ calls: z.number().int(), rejected: z.number().int(), windowMinutes: z.number().int() }),
  /** Rejected messages in the last 24 hours, in total and by reason category (too_large, missing_id, …). */
  rejectedLast24h: z.object({ total: z.number().int(), byReason: z.record(z.string(), z.number().int()) }),
});

export const sourceDtoSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** null for viewers and read-only tokens: they see sources, not their write keys (docs/management-api.md#roles). */
  writeKey: z.string().nullable(),
  /**
   * The key before the last rotation while it still works (its grace period), else null. Only its
   * first 6 characters: the full old key is never shown again.
   */
  previousWriteKey: z.object({ prefix: z.string(), expiresAt: z.string() }).nullable(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  health: sourceHealthSchema,
});

export const sourceEventsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1, "At least 1").max(200, "At most 200").default(50),
});

/**
 * One call in a source's debugger: an accepted message or a rejection. Not every stored message of
 * a source came from a client: a deletion request makes the source send a delete notice of its own
 * (docs/deletions.md#notices), and erasing a user keeps only the shell of their calls.
 */
export const sourceEventDtoSchema = z.object({
  id: z.string(),
  accepted: z.boolean(),
  /** "api": a call a client sent to the Tracking API; "deletion": a delete notice Eventrail sent for a deletion request. */
  origin: z.enum(["api", "deletion"]),
  /** The deletion request that sent this delete notice (origin "deletion"); null otherwise. */
  deletionRequestId: z.string().nullable(),
  /** The call's data was erased by a deletion request: only its type, messageId and time remain (payload is null). */
  erased: z.boolean(),
  type: z.string().nullable(),
  messageId: z.string().nullable(),
  reason: z.string().nullable(),
  receivedAt: z.string(),
  payload: z.unknown(),
  /** What the source's tracking plan found (docs/tracking-plans.md#violations); empty when nothing. */
  violations: z.array(z.object({ path: z.string(), rule: z.string(), message: z.string() })).default([]),
  /** The plan blocked it: stored, not routed to any destination. */
  blocked: z.boolean().default(false),
});

export type CreateSourceInput = z.infer<typeof createSourceSchema>;
export type UpdateSourceInput = z.infer<typeof updateSourceSchema>;
export type SourceDto = z.infer<typeof sourceDtoSchema>;
export type SourceHealthDto = z.infer<typeof sourceHealthSchema>;
export type SourceEventsQuery = z.infer<typeof sourceEventsQuerySchema>;
export type SourceEventDto = z.infer<typeof sourceEventDtoSchema>;

const id = { path: "/api/sources/{id}" } as const;

export const sourceEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/sources",
    access: "viewer",
    summary: "List the workspace's sources, each with its health (recent rejections)",
    response: z.object({ sources: z.array(sourceDtoSchema) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/sources",
    access: "admin",
    summary: "Create a source; the answer carries its write key",
    body: createSourceSchema,
    response: sourceDtoSchema,
    status: 201,
  }),
  get: endpoint({
    method: "GET",
    ...id,
    access: "viewer",
    summary: "One source, with its health: the share of recent calls rejected and the rejections of the last 24 hours by reason",
    response: sourceDtoSchema,
  }),
  update: endpoint({
    method: "PATCH",
    ...id,
    access: "admin",
    summary: "Rename, enable or disable a source",
    body: updateSourceSchema,
    response: sourceDtoSchema,
  }),
  remove: endpoint({ method: "DELETE", ...id, access: "admin", summary: "Delete a source and its stored events" }),
  rotateKey: endpoint({
    method: "POST",
    path: "/api/sources/{id}/rotate-key",
    access: "admin",
    summary:
      'Give the source a new write key; the old one keeps working for `graceMinutes` (0 to 10080, default 0), then answers 401. Body optional: `{"graceMinutes": 60}`',
    body: rotateKeySchema,
    response: sourceDtoSchema,
  }),
  events: endpoint({
    method: "GET",
    path: "/api/sources/{id}/events",
    access: "viewer",
    summary: "The source debugger: recent calls, accepted and rejected, newest first",
    query: sourceEventsQuerySchema,
    response: z.object({ events: z.array(sourceEventDtoSchema) }),
  }),
};
