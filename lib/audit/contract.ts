import { z } from "zod";
import { endpoint } from "../api/endpoint";

/** The audit log's read side (docs/management-api.md#audit-log). */

export const auditQuerySchema = z.object({
  /** A user's id or email, a token's id or name. */
  actor: z.string().trim().max(254).optional(),
  /** source, destination, audience, capture_bin, token, member, invitation, deletion, replay, session, workspace */
  resource: z.string().trim().max(40).optional(),
  /** An exact action (destination.update) or its resource's prefix (destination.). */
  action: z.string().trim().max(60).optional(),
  resourceId: z.string().trim().max(100).optional(),
  from: z.string().datetime({ offset: true, message: "Use an ISO 8601 time" }).optional(),
  to: z.string().datetime({ offset: true, message: "Use an ISO 8601 time" }).optional(),
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, "Not a cursor")
    .optional(),
  limit: z.coerce.number().int().min(1, "At least 1").max(200, "At most 200").default(50),
});

export const auditEventDtoSchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({
    type: z.enum(["user", "token", "operator", "anonymous"]),
    id: z.string().nullable(),
    label: z.string(),
  }),
  address: z.string().nullable(),
  action: z.string(),
  resourceType: z.string(),
  resourceId: z.string().nullable(),
  /** Each changed field, before → after; secrets and header values appear only as "changed". */
  changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })).nullable(),
});

export const auditPageDtoSchema = z.object({ events: z.array(auditEventDtoSchema), nextCursor: z.string().nullable() });

export type AuditQuery = z.infer<typeof auditQuerySchema>;
export type AuditEventDto = z.infer<typeof auditEventDtoSchema>;
export type AuditPageDto = z.infer<typeof auditPageDtoSchema>;

export const auditEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/audit",
    access: "admin",
    summary: "The audit log, newest first: who changed what, when and from where; filtered and keyset-paged (pass nextCursor as cursor)",
    query: auditQuerySchema,
    response: auditPageDtoSchema,
  }),
};
