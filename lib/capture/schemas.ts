import { z } from "zod";

/** Limits stated on the capture page and enforced by the receiver. */
export const CAPTURE_LIMITS = {
  /** Requests kept per bin; older ones are pruned as new ones arrive. */
  requestsPerBin: 500,
  /** Body bytes stored per request; the rest is counted but dropped (`truncated`). */
  bodyBytes: 1024 * 1024,
  /** Longest configurable response delay (the delivery timeout is 5 s, so this covers timeouts). */
  maxDelayMs: 30_000,
  binsPerWorkspace: 100,
} as const;

const name = z.string().trim().max(100, "At most 100 characters");
const responseStatus = z
  .number({ error: "Enter a status code" })
  .int("Enter a whole number")
  .min(200, "Use a status between 200 and 599")
  .max(599, "Use a status between 200 and 599");
const responseDelayMs = z
  .number({ error: "Enter a delay in milliseconds" })
  .int("Enter a whole number of milliseconds")
  .min(0, "The delay cannot be negative")
  .max(CAPTURE_LIMITS.maxDelayMs, `At most ${CAPTURE_LIMITS.maxDelayMs} ms`);

export const createCaptureBinSchema = z
  .object({ name: name.optional(), responseStatus: responseStatus.optional(), responseDelayMs: responseDelayMs.optional() })
  .strict();

export const updateCaptureBinSchema = z
  .object({ name: name.optional(), responseStatus: responseStatus.optional(), responseDelayMs: responseDelayMs.optional() })
  .strict();

export const listCapturedRequestsQuery = z.object({
  /** Only requests newer than this id (live polling). */
  after: z.string().regex(/^\d{1,18}$/, "Use a request id").optional(),
  limit: z.coerce.number().int().min(1).max(CAPTURE_LIMITS.requestsPerBin).default(100),
});

export type CreateCaptureBinInput = z.infer<typeof createCaptureBinSchema>;
export type UpdateCaptureBinInput = z.infer<typeof updateCaptureBinSchema>;

export type CaptureBinDto = {
  id: string;
  name: string;
  /** `/c/<id>`; the dashboard prefixes its own origin. */
  path: string;
  /** Absolute URL when the server knows its public base (EVENTRAIL_PUBLIC_URL or the request's origin). */
  url: string;
  responseStatus: number;
  responseDelayMs: number;
  requestCount: number;
  lastRequestAt: string | null;
  createdAt: string;
};

export type CapturedRequestDto = {
  id: string;
  method: string;
  path: string;
  /** Raw query string without the leading `?`. */
  query: string;
  headers: Record<string, string>;
  body: string;
  /** Bytes received, including any that were dropped. */
  bodySize: number;
  truncated: boolean;
  receivedAt: string;
};
