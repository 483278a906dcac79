import { z } from "zod";
import { isReservedHeader, isStandardSecret } from "../webhooks/rules";
import { MESSAGE_TYPES } from "../webhooks/payload";

/** Shared by the API and the dashboard form: field errors come out keyed `urls.1`, `headers.0.name`, `sharedSecret`. */

export const MAX_URLS = 5;
export const MAX_HEADERS = 5;
export const RETRY_WINDOW_DEFAULT = 240;

const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
};

export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1, "Enter a URL")
  .max(2048, "At most 2048 characters")
  .refine(isHttpUrl, "Enter a full URL starting with http:// or https://");

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const headerSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Enter a header name")
    .max(100, "At most 100 characters")
    .regex(HEADER_NAME, "Letters, digits and - _ . only (no spaces or colons)")
    .refine((n) => !isReservedHeader(n), "Eventrail sets this header itself; it cannot be overridden"),
  value: z
    .string()
    .max(2000, "At most 2000 characters")
    .refine((v) => !/[\r\n\u0000]/.test(v), "Header values cannot contain line breaks"),
});

/** "" from an empty form field means "no secret". */
const optionalSecret = (inner: z.ZodType<string>) =>
  z.union([z.literal("").transform(() => null), z.null(), inner]).optional();

const fields = {
  name: z.string().trim().min(1, "Enter a name").max(100, "At most 100 characters"),
  urls: z.array(webhookUrlSchema).min(1, "Add at least one URL").max(MAX_URLS, `At most ${MAX_URLS} URLs`),
  headers: z.array(headerSchema).max(MAX_HEADERS, `At most ${MAX_HEADERS} headers`),
  sharedSecret: optionalSecret(z.string().trim().min(1).max(200, "At most 200 characters")),
  standardWebhooks: z.boolean(),
  standardSecret: optionalSecret(
    z.string().trim().refine(isStandardSecret, "A Standard Webhooks secret looks like whsec_ followed by base64 (24+ bytes)"),
  ),
  enabled: z.boolean(),
  sourceIds: z.array(z.string().uuid("Not a source id")).max(100, "At most 100 sources"),
  mode: z.enum(["any", "every"]),
  retryWindowMinutes: z
    .number("Enter a number of minutes")
    .int("Whole minutes")
    .min(1, "At least 1 minute")
    .max(10080, "At most 10080 minutes (7 days)"),
};

type Checked = { urls?: string[]; headers?: { name: string }[]; sourceIds?: string[] };

/** Duplicates are refused where the duplicate sits, so the form can point at it. */
function refuseDuplicates(v: Checked, ctx: z.RefinementCtx) {
  const seen = (list: string[] | undefined, path: string, message: string, norm: (s: string) => string = (s) => s) => {
    const set = new Set<string>();
    list?.forEach((item, i) => {
      const k = norm(item);
      if (set.has(k)) ctx.addIssue({ code: "custom", path: path.split(".").concat(String(i)).concat(path === "headers" ? ["name"] : []), message });
      set.add(k);
    });
  };
  seen(v.urls, "urls", "This URL is already listed");
  seen(v.headers?.map((h) => h.name), "headers", "This header is already listed", (s) => s.toLowerCase());
  seen(v.sourceIds, "sourceIds", "This source is already connected");
}

export const destinationInputSchema = z
  .object({
    ...fields,
    headers: fields.headers.default([]),
    standardWebhooks: fields.standardWebhooks.default(false),
    enabled: fields.enabled.default(true),
    sourceIds: fields.sourceIds.default([]),
    mode: fields.mode.default("any"),
    retryWindowMinutes: fields.retryWindowMinutes.default(RETRY_WINDOW_DEFAULT),
  })
  .superRefine(refuseDuplicates);

export const destinationPatchSchema = z.object(fields).partial().superRefine(refuseDuplicates);

export type DestinationInput = z.infer<typeof destinationInputSchema>;
export type DestinationPatch = z.infer<typeof destinationPatchSchema>;

export type DestinationDto = {
  id: string;
  name: string;
  urls: string[];
  headers: { name: string; value: string }[];
  sharedSecret: string | null;
  standardWebhooks: boolean;
  standardSecret: string | null;
  enabled: boolean;
  mode: "any" | "every";
  retryWindowMinutes: number;
  sourceIds: string[];
  createdAt: string;
  updatedAt: string;
};

/** POST /api/destinations/:id/test */
export const testSendSchema = z.object({
  type: z.enum(MESSAGE_TYPES),
  url: webhookUrlSchema.optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
});
export type TestSendInput = z.infer<typeof testSendSchema>;
