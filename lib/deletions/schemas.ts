import { z } from "zod";

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

export const listDeletionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** keyset cursor from the previous page's `nextCursor` */
  cursor: z.string().optional(),
});

export const DELETION_STATUSES = ["pending", "running", "completed", "failed"] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

/** What erasing one user removed, as recorded in `deletion_requests.result`. */
export type ErasedCounts = {
  /** message rows deleted outright (nothing was ever delivered from them) */
  messagesDeleted: number;
  /** message rows kept for the delivery log but stripped of payload and identifiers */
  messagesRedacted: number;
  /** pending deliveries of erased messages, stopped so the user's data is not sent on */
  deliveriesCancelled: number;
  /** attempt log rows whose request and response bodies were cleared */
  attemptsRedacted: number;
  profiles: number;
  identityLinks: number;
  audienceMemberships: number;
  /** debugger entries of the user's calls */
  sourceCalls: number;
};

export type UserResult = {
  userId: string;
  affectedSourceIds: string[];
  erased: ErasedCounts;
  /** deliveries of delete notifications created (one per affected source and connected destination) */
  notifications: number;
  finishedAt: string;
};

/** The JSON in `deletion_requests.result`: users done so far, keyed by userId (re-runs skip them). */
export type DeletionResult = { users: Record<string, UserResult> };

export type DeletionSummaryDto = {
  id: string;
  userIds: string[];
  status: DeletionStatus;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  usersDone: number;
  affectedSourceCount: number;
  notificationCount: number;
};

export type NotificationDto = {
  deliveryId: string;
  messageRowId: string;
  messageId: string;
  userId: string;
  source: { id: string | null; name: string | null };
  destination: { id: string; name: string | null };
  state: "pending" | "delivered" | "failed";
  attemptCount: number;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
};

export type DeletionDetailDto = DeletionSummaryDto & {
  /** per userId, in request order; `done` is false until the job reaches that user */
  users: (Omit<UserResult, "finishedAt"> & { done: boolean; finishedAt: string | null })[];
  affectedSources: { id: string; name: string | null }[];
  notifications: NotificationDto[];
  /** totals over all notifications (the list above is capped) */
  notificationTotals: { pending: number; delivered: number; failed: number };
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
