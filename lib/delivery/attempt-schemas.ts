import { z } from "zod";
import { MESSAGE_TYPES } from "../webhooks/payload";

const isoDate = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), "Not a date (use ISO 8601)")
  .transform((v) => new Date(v));

/** Filters of GET /api/attempts, also the `filter` of POST /api/messages/replay. */
export const attemptFilterSchema = z.object({
  destinationId: z.string().uuid("Not a destination id").optional(),
  outcome: z.enum(["success", "retry", "failed"]).optional(),
  statusClass: z.enum(["2xx", "3xx", "4xx", "5xx", "none"]).optional(),
  type: z.enum(MESSAGE_TYPES).optional(),
  userId: z.string().min(1).max(500).optional(),
  messageId: z.string().min(1).max(500).optional(),
  url: z.string().min(1).max(2048).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
});

export const attemptListQuerySchema = attemptFilterSchema.extend({
  cursor: z.string().regex(/^\d+$/, "Not a cursor").optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export type AttemptFilter = z.infer<typeof attemptFilterSchema>;
export type AttemptListQuery = z.infer<typeof attemptListQuerySchema>;

export type AttemptDto = {
  id: string;
  destinationId: string;
  destinationName: string | null;
  messageRowId: string;
  messageId: string;
  type: string;
  userId: string | null;
  url: string;
  attemptNumber: number;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  errorKind: string | null;
  errorText: string | null;
  outcome: "success" | "retry" | "failed";
  nextRetryAt: string | null;
};

export type AttemptDetailDto = AttemptDto & {
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
};
