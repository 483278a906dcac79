import { z } from "zod";
import { audienceConditionSchema, type Condition } from "./condition";
import { audiencePropertyName } from "./names";

const name = z
  .string()
  .trim()
  .min(1, "Name is required")
  .max(100, "At most 100 characters")
  .refine((n) => audiencePropertyName(n) !== "", "Use at least one letter or digit");
const ids = (what: string) => z.array(z.string().uuid(`Unknown ${what}`)).max(50, `At most 50 ${what}s`);
const sourceIds = ids("source").min(1, "Pick at least one source");
/** Every 5 minutes at most, once a week at least; null: on demand only. */
const scheduleMinutes = z.number().int("Use a whole number of minutes").min(5, "At least 5 minutes").max(10_080, "At most a week (10080)").nullable();

export const createAudienceSchema = z
  .object({
    name,
    sourceIds,
    destinationIds: ids("destination").default([]),
    condition: audienceConditionSchema,
    scheduleMinutes: scheduleMinutes.optional().default(null),
  })
  .strict();

export const updateAudienceSchema = z
  .object({
    name: name.optional(),
    sourceIds: sourceIds.optional(),
    destinationIds: ids("destination").optional(),
    condition: audienceConditionSchema.optional(),
    scheduleMinutes: scheduleMinutes.optional(),
  })
  .strict();

export const previewAudienceSchema = z.object({ condition: audienceConditionSchema, sourceIds }).strict();

export const listMembersQuery = z.object({
  q: z.string().trim().max(200, "At most 200 characters").optional(),
  cursor: z.string().max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export type CreateAudienceInput = z.infer<typeof createAudienceSchema>;
export type UpdateAudienceInput = z.infer<typeof updateAudienceSchema>;
export type PreviewAudienceInput = z.infer<typeof previewAudienceSchema>;
export type ListMembersQuery = z.infer<typeof listMembersQuery>;

export type SyncStatus = "queued" | "running" | "completed" | "failed" | "skipped";

export type AudienceSyncDto = {
  id: string;
  status: SyncStatus;
  /** the first sync after creation: every member sent `true` */
  initial: boolean;
  trigger: string;
  entered: number;
  exited: number;
  /** identify deliveries enqueued so far, of `total` planned */
  sent: number;
  total: number;
  /** membership after this sync */
  size: number;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
};

export type AudienceDto = {
  id: string;
  name: string;
  propertyName: string;
  condition: Condition;
  sourceIds: string[];
  destinationIds: string[];
  scheduleMinutes: number | null;
  /** members as of the last completed sync */
  size: number;
  lastSync: AudienceSyncDto | null;
  lastSyncedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export type AudienceMemberDto = { userId: string; since: string; traits: Record<string, unknown> };
