import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { audienceConditionSchema, conditionSchema } from "./condition";
import { audiencePropertyName } from "./names";

/** Audiences: named conditions over user profiles, synced to destinations as identify calls (docs/audiences.md). */

const name = z
  .string()
  .trim()
  .min(1, "Name is required")
  .max(100, "At most 100 characters")
  .refine((n) => audiencePropertyName(n) !== "", "Use at least one letter or digit");
const ids = (what: string) => z.array(z.string().uuid(`Unknown ${what}`)).max(50, `At most 50 ${what}s`);
const sourceIds = ids("source").min(1, "Pick at least one source");
/** Every 5 minutes at most, once a week at least; null: on demand only. */
const scheduleMinutes = z
  .number()
  .int("Use a whole number of minutes")
  .min(5, "At least 5 minutes")
  .max(10_080, "At most a week (10080)")
  .nullable();

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

export const listMembersQuerySchema = z.object({
  q: z.string().trim().max(200, "At most 200 characters").optional(),
  cursor: z.string().max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export type CreateAudienceInput = z.infer<typeof createAudienceSchema>;
export type UpdateAudienceInput = z.infer<typeof updateAudienceSchema>;
export type PreviewAudienceInput = z.infer<typeof previewAudienceSchema>;
export type ListMembersQuery = z.infer<typeof listMembersQuerySchema>;

/** The values audience_syncs' CHECK constraints allow (migration 20261122170000_status_checks). */
export const SYNC_STATUSES = ["queued", "running", "completed", "failed", "skipped"] as const;
export const SYNC_TRIGGERS = ["manual", "schedule", "created", "updated"] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];

/** One sync of an audience (docs/audiences.md#syncs). */
export const audienceSyncDtoSchema = z.object({
  id: z.string(),
  status: z.enum(SYNC_STATUSES),
  /** the first sync after creation: every member sent `true` */
  initial: z.boolean(),
  trigger: z.enum(SYNC_TRIGGERS),
  entered: z.number().int(),
  exited: z.number().int(),
  /** identify deliveries enqueued so far, of `total` planned */
  sent: z.number().int(),
  total: z.number().int(),
  /** membership after this sync */
  size: z.number().int(),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
});

export const audienceDtoSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** the identify trait the audience sets: snake_case of its name */
  propertyName: z.string(),
  condition: conditionSchema,
  sourceIds: z.array(z.string()),
  destinationIds: z.array(z.string()),
  scheduleMinutes: z.number().int().nullable(),
  /** members as of the last completed sync */
  size: z.number().int(),
  lastSync: audienceSyncDtoSchema.nullable(),
  lastSyncedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const audienceMemberDtoSchema = z.object({ userId: z.string(), since: z.string(), traits: z.record(z.string(), z.unknown()) });

export const audienceMembersPageSchema = z.object({
  members: z.array(audienceMemberDtoSchema),
  /** the `cursor` of the next page; null on the last one */
  nextCursor: z.string().nullable(),
});

export const audiencePreviewSchema = z.object({ count: z.number().int() });

/** "Sync now": the sync that will run, and whether this request queued it (false: one was already queued or running). */
export const audienceSyncRequestSchema = z.object({ sync: audienceSyncDtoSchema, created: z.boolean() });

export type AudienceSyncDto = z.infer<typeof audienceSyncDtoSchema>;
export type AudienceDto = z.infer<typeof audienceDtoSchema>;
export type AudienceMemberDto = z.infer<typeof audienceMemberDtoSchema>;
export type AudienceMembersPage = z.infer<typeof audienceMembersPageSchema>;
export type AudiencePreview = z.infer<typeof audiencePreviewSchema>;
export type AudienceSyncRequest = z.infer<typeof audienceSyncRequestSchema>;

const id = { path: "/api/audiences/{id}" } as const;

/** docs/audiences.md; the resource table of docs/management-api.md#resources. */
export const audienceEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/audiences",
    access: "viewer",
    summary: "List the workspace's audiences with their sizes and last syncs",
    response: z.object({ audiences: z.array(audienceDtoSchema) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/audiences",
    access: "admin",
    summary: "Create an audience and queue its first sync, which sends every member `true`",
    body: createAudienceSchema,
    response: audienceDtoSchema,
    status: 201,
  }),
  get: endpoint({
    method: "GET",
    ...id,
    access: "viewer",
    summary: "One audience with its size and last sync",
    response: audienceDtoSchema,
  }),
  update: endpoint({
    method: "PATCH",
    ...id,
    access: "admin",
    summary: "Change an audience's name, condition, sources, destinations or schedule; effective at the next sync",
    body: updateAudienceSchema,
    response: audienceDtoSchema,
  }),
  remove: endpoint({ method: "DELETE", ...id, access: "admin", summary: "Delete an audience with its membership and sync history" }),
  sync: endpoint({
    method: "POST",
    path: "/api/audiences/{id}/sync",
    access: "admin",
    summary: "Sync now: 202 with the sync it queued, or 200 with the one already queued or running",
    response: audienceSyncRequestSchema,
    status: 202,
  }),
  syncs: endpoint({
    method: "GET",
    path: "/api/audiences/{id}/syncs",
    access: "viewer",
    summary: "An audience's last 50 syncs, newest first",
    response: z.object({ syncs: z.array(audienceSyncDtoSchema) }),
  }),
  members: endpoint({
    method: "GET",
    path: "/api/audiences/{id}/members",
    access: "viewer",
    summary: "An audience's members by userId, optionally those whose userId or email contains `q`",
    query: listMembersQuerySchema,
    response: audienceMembersPageSchema,
  }),
  preview: endpoint({
    method: "POST",
    path: "/api/audiences/preview",
    access: "viewer",
    summary: "Count the users a condition matches now in the given sources, without saving anything",
    body: previewAudienceSchema,
    response: audiencePreviewSchema,
  }),
};
