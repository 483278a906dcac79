import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { CAPTURE_LIMITS } from "./limits";

/** Capture URLs: public `/c/<id>` URLs that record what they receive, to test destinations against. */

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

export const capturedRequestsQuerySchema = z.object({
  /** Only requests newer than this id (live polling). */
  after: z
    .string()
    .regex(/^\d{1,18}$/, "Use a request id")
    .optional(),
  limit: z.coerce.number().int().min(1).max(CAPTURE_LIMITS.requestsPerBin).default(100),
});

export type CreateCaptureBinInput = z.infer<typeof createCaptureBinSchema>;
export type UpdateCaptureBinInput = z.infer<typeof updateCaptureBinSchema>;
export type CapturedRequestsQuery = z.infer<typeof capturedRequestsQuerySchema>;

export const captureBinDtoSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** `/c/<id>`; the dashboard prefixes its own origin. */
  path: z.string(),
  /** Absolute URL when the server knows its public base (EVENTRAIL_PUBLIC_URL or the request's origin). */
  url: z.string(),
  responseStatus: z.number().int(),
  responseDelayMs: z.number().int(),
  requestCount: z.number().int(),
  lastRequestAt: z.string().nullable(),
  createdAt: z.string(),
});

/**
 * One captured request as the list shows it: no headers, and only the first `previewBytes` of the
 * body, decoded as UTF-8 for display (a list of 100 full 1 MB bodies was 300 MB).
 */
export const capturedRequestSummaryDtoSchema = z.object({
  id: z.string(),
  method: z.string(),
  path: z.string(),
  /** Raw query string without the leading `?`. */
  query: z.string(),
  contentType: z.string().nullable(),
  /** Bytes received, including any that were dropped. */
  bodySize: z.number().int(),
  truncated: z.boolean(),
  /** The first bytes of the body, UTF-8 decoded (invalid bytes shown as U+FFFD). */
  preview: z.string(),
  /** More of the body is stored than the preview shows. */
  previewCut: z.boolean(),
  /** Which signature headers it carries, so the list can mark signed requests. */
  signed: z.object({ xSignature: z.boolean(), standardWebhooks: z.boolean() }),
  receivedAt: z.string(),
});

/** One captured request in full: headers and the body as stored. */
export const capturedRequestDtoSchema = capturedRequestSummaryDtoSchema.extend({
  headers: z.record(z.string(), z.string()),
  /** The stored body: text when it is valid UTF-8, else base64 of the bytes (`bodyEncoding`). */
  body: z.string(),
  bodyEncoding: z.enum(["utf8", "base64"]),
});

/** How a signature check came out: only valid/invalid/absent/unverifiable and why, never the expected digest. */
export const verdictSchema = z.object({
  state: z.enum(["valid", "invalid", "absent", "unverifiable"]),
  detail: z.string(),
});

/**
 * `POST …/requests/{requestId}/verify`: check the request's signatures against a destination's
 * secrets, on the server. Without `destinationId`, against the destination that sent it (its
 * webhook-id's message, or a destination whose URLs name this capture URL): docs/dashboard.md#capture-urls.
 */
export const signatureCheckInputSchema = z.object({ destinationId: z.uuid("Not a destination id").optional() }).strict();
export const signatureCheckDtoSchema = z.object({
  /** the destination checked against; null when none was chosen and no sender was found */
  destinationId: z.string().nullable(),
  destinationName: z.string().nullable(),
  /** "chosen": the one asked for; "sender": found from the request itself */
  checkedAgainst: z.enum(["chosen", "sender", "none"]),
  xSignature: verdictSchema,
  standardWebhooks: verdictSchema,
});

export type CaptureBinDto = z.infer<typeof captureBinDtoSchema>;
export type CapturedRequestSummaryDto = z.infer<typeof capturedRequestSummaryDtoSchema>;
export type CapturedRequestDto = z.infer<typeof capturedRequestDtoSchema>;
export type SignatureCheckInput = z.infer<typeof signatureCheckInputSchema>;
export type SignatureCheckDto = z.infer<typeof signatureCheckDtoSchema>;
export type Verdict = z.infer<typeof verdictSchema>;

const id = { path: "/api/capture-bins/{id}" } as const;
const requests = { path: "/api/capture-bins/{id}/requests" } as const;

export const captureEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/capture-bins",
    access: "viewer",
    summary: "List the workspace's capture URLs, newest first",
    response: z.object({ bins: z.array(captureBinDtoSchema) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/capture-bins",
    access: "admin",
    summary: "Create a capture URL that records the requests it receives and answers with the configured status",
    body: createCaptureBinSchema,
    response: captureBinDtoSchema,
    status: 201,
  }),
  get: endpoint({ method: "GET", ...id, access: "viewer", summary: "One capture URL", response: captureBinDtoSchema }),
  update: endpoint({
    method: "PATCH",
    ...id,
    access: "admin",
    summary: "Rename a capture URL or change the status and delay it answers with",
    body: updateCaptureBinSchema,
    response: captureBinDtoSchema,
  }),
  remove: endpoint({ method: "DELETE", ...id, access: "admin", summary: "Delete a capture URL and the requests it recorded" }),
  requests: endpoint({
    method: "GET",
    ...requests,
    access: "viewer",
    summary:
      "The requests a capture URL recorded, newest first, each with a preview of its body; with `after`, only those that arrived since",
    query: capturedRequestsQuerySchema,
    response: z.object({ requests: z.array(capturedRequestSummaryDtoSchema) }),
  }),
  request: endpoint({
    method: "GET",
    path: "/api/capture-bins/{id}/requests/{requestId}",
    access: "viewer",
    summary: "One captured request in full: its headers and its whole stored body",
    response: capturedRequestDtoSchema,
  }),
  verify: endpoint({
    method: "POST",
    path: "/api/capture-bins/{id}/requests/{requestId}/verify",
    access: "viewer",
    summary:
      "Check a captured request's X-Signature and Standard Webhooks signature against a destination's secrets, without the secrets leaving the server",
    body: signatureCheckInputSchema,
    response: signatureCheckDtoSchema,
  }),
  clearRequests: endpoint({ method: "DELETE", ...requests, access: "admin", summary: "Delete every request a capture URL recorded" }),
};
