import { z } from "zod";
import { endpoint } from "../api/endpoint";

/** Deletion requests: erase users' data and notify the destinations that received it (docs/deletions.md). */

export const MAX_USER_IDS = 1000;
export const MAX_USER_ID_LENGTH = 500;

const userId = z
  .string({ error: "Each userId must be a string" })
  .max(MAX_USER_ID_LENGTH, `A userId has at most ${MAX_USER_ID_LENGTH} characters`)
  .refine((s) => s.trim().length > 0, "A userId cannot be empty");

/**
 * `POST /api/deletions`. userIds are kept exactly as sent (they must match what clients tracked);
 * duplicates are dropped, first occurrence wins the order.
 */
export const createDeletionSchema = z
  .object({
    userIds: z
      .array(userId, { error: "userIds must be a list of userIds" })
      .min(1, "Name at least one userId")
      .max(MAX_USER_IDS, `At most ${MAX_USER_IDS} userIds per request`),
  })
  .strict()
  .transform((v) => ({ userIds: [...new Set(v.userIds)] }));

export type CreateDeletionInput = z.infer<typeof createDeletionSchema>;

export const listDeletionsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** keyset cursor from the previous page's `nextCursor` */
  cursor: z.string().max(200, "Invalid cursor").optional(),
});

export type ListDeletionsQuery = z.infer<typeof listDeletionsQuerySchema>;

/** The values deletion_requests' CHECK constraint allows (migration 20261122170000_status_checks). */
export const DELETION_STATUSES = ["pending", "running", "completed", "failed"] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

const count = z.number().int();

/** What erasing one user removed, as recorded in `deletion_requests.result`. */
export const erasedCountsSchema = z.object({
  /** message rows deleted outright (nothing was ever delivered from them) */
  messagesDeleted: count,
  /** message rows kept for the request log but stripped of payload and identifiers */
  messagesRedacted: count,
  /** pending deliveries of erased messages, stopped so the user's data is not sent on */
  deliveriesCancelled: count,
  /** request log rows whose request and response bodies were cleared */
  attemptsRedacted: count,
  profiles: count,
  identityLinks: count,
  audienceMemberships: count,
  /** debugger entries of the user's calls */
  sourceCalls: count,
  /** capture URL requests carrying the user's events (absent from requests finished before it was counted) */
  capturedRequests: count.optional(),
});

export const userResultSchema = z.object({
  userId: z.string(),
  affectedSourceIds: z.array(z.string()),
  erased: erasedCountsSchema,
  /** deliveries of delete notifications created (one per affected source and connected destination) */
  notifications: count,
  finishedAt: z.string(),
});

/** The JSON in `deletion_requests.result`: users done so far, keyed by userId (re-runs skip them). */
export const deletionResultSchema = z.object({ users: z.record(z.string(), userResultSchema) });

export type ErasedCounts = z.infer<typeof erasedCountsSchema>;
export type UserResult = z.infer<typeof userResultSchema>;
export type DeletionResult = z.infer<typeof deletionResultSchema>;

export const deletionSummaryDtoSchema = z.object({
  id: z.string(),
  userIds: z.array(z.string()),
  status: z.enum(DELETION_STATUSES),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  usersDone: count,
  affectedSourceCount: count,
  notificationCount: count,
});

/** One delete notice sent for the request: its delivery to one destination (docs/deletions.md#notices). */
export const notificationDtoSchema = z.object({
  deliveryId: z.string(),
  messageRowId: z.string(),
  messageId: z.string(),
  userId: z.string(),
  /** both null once the source is deleted (messages keep no reference to it) */
  source: z.object({ id: z.string().nullable(), name: z.string().nullable() }),
  destination: z.object({ id: z.string(), name: z.string().nullable() }),
  state: z.enum(["pending", "delivered", "failed"]),
  attemptCount: count,
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
});

export const deletionDetailDtoSchema = deletionSummaryDtoSchema.extend({
  /** per userId, in request order; `done` is false until the job reaches that user */
  users: z.array(userResultSchema.extend({ done: z.boolean(), finishedAt: z.string().nullable() })),
  affectedSources: z.array(z.object({ id: z.string(), name: z.string().nullable() })),
  /** the first NOTIFICATIONS_SHOWN (500) of them */
  notifications: z.array(notificationDtoSchema),
  /** totals over all notifications (the list above is capped) */
  notificationTotals: z.object({ pending: count, delivered: count, failed: count }),
});

export const deletionsPageSchema = z.object({
  deletions: z.array(deletionSummaryDtoSchema),
  /** the `cursor` of the next page; null on the last one */
  nextCursor: z.string().nullable(),
});

export type DeletionSummaryDto = z.infer<typeof deletionSummaryDtoSchema>;
export type NotificationDto = z.infer<typeof notificationDtoSchema>;
export type DeletionDetailDto = z.infer<typeof deletionDetailDtoSchema>;
export type DeletionsPage = z.infer<typeof deletionsPageSchema>;

/** docs/deletions.md; the resource table of docs/management-api.md#resources. */
export const deletionEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/deletions",
    access: "viewer",
    summary: "List the workspace's deletion requests, newest first",
    query: listDeletionsQuerySchema,
    response: deletionsPageSchema,
  }),
  create: endpoint({
    method: "POST",
    path: "/api/deletions",
    access: "admin",
    summary: "Ask to erase users' stored data and notify the destinations of the sources that held it",
    body: createDeletionSchema,
    response: deletionSummaryDtoSchema,
    status: 201,
  }),
  get: endpoint({
    method: "GET",
    path: "/api/deletions/{id}",
    access: "viewer",
    summary: "One deletion request: per user what was erased, the affected sources and the notices' delivery",
    response: deletionDetailDtoSchema,
  }),
};

/**
 * The dashboard textarea: one userId per line or comma-separated. Blank entries are dropped and
 * each entry is trimmed (pasting lists brings stray spaces); duplicates are dropped.
 */
export function parseUserIdList(text: string): string[] {
  const ids = text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return [...new Set(ids)];
}
