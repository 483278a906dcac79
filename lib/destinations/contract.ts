import { z } from "zod";
import { endpoint } from "../api/endpoint";
import { attemptDetailDtoSchema } from "../request-log/contract";
import { HEADER_NAME, isConnectionHeader, isHeaderValue, isReservedHeader, isStandardSecret } from "../webhooks/rules";
import { MESSAGE_TYPES } from "../webhooks/payload";
import { checkMapping } from "../webhooks/mapping";
import { METHODS, NUMBER_FORMS } from "../webhooks/request-shape";
import { urlTemplateProblem } from "../webhooks/url-template";
import { batchProblem, batchSettingsSchema } from "../webhooks/batching";
import { TOKEN_AUTH_METHODS } from "../webhooks/endpoint-auth";
import { filterConditionSchema } from "../routing/event-condition";
import { allowListSchema, dropListSchema } from "../routing/field-lists";
import { MAX_ROTATION_GRACE_MINUTES } from "../sources/rotation";
import { FILTER_TYPES } from "./filter-types";

/** Shared by the API and the dashboard form: field errors come out keyed `urls.1`, `headers.0.name`, `sharedSecret`. */

export const MAX_URLS = 5;
export const MAX_HEADERS = 5;
export const RETRY_WINDOW_DEFAULT = 240;

/**
 * Fan-out ceilings (docs/webhooks.md#limits): one batch of 2,500 messages from a source can make at
 * most 2,500 × 20 deliveries, and a workspace holds at most 50 destinations.
 */
export const DESTINATION_LIMITS = { perWorkspace: 50, perSource: 20 } as const;

const parseUrl = (v: string) => {
  try {
    return new URL(v);
  } catch {
    return null;
  }
};
const isHttpUrl = (v: string) => {
  const u = parseUrl(v);
  return !!u && (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
};
// `http://alice:pw@host/`: fetch drops the credentials silently, and the request log would show them.
const hasCredentials = (v: string) => {
  const u = parseUrl(v);
  return !!u && (u.username !== "" || u.password !== "");
};

export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1, "Enter a URL")
  .max(2048, "At most 2048 characters")
  .refine(isHttpUrl, "Enter a full URL starting with http:// or https://")
  .refine(
    (v) => !hasCredentials(v),
    "Credentials in a URL are not sent: remove user:password@ and add an Authorization header instead (under Headers)",
  )
  // {{field}} templates in the path and query only: the host is fixed here (docs/request-shape.md#url-templates).
  .superRefine((v, ctx) => {
    const problem = urlTemplateProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/**
 * A body mapping in Segment's mapping language (docs/request-shape.md#mapping): each problem is
 * reported where it sits, as `mapping.data.email.@template`.
 */
export const mappingSchema = z
  .record(z.string(), z.unknown(), { error: 'A mapping is a JSON object, like {"@path": "$."} (the whole event)' })
  .superRefine((m, ctx) => {
    for (const issue of checkMapping(m)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });

const headerName = z
  .string()
  .trim()
  .min(1, "Enter a header name")
  .max(100, "At most 100 characters")
  .regex(HEADER_NAME, "Letters, digits and - _ . only (no spaces or colons)")
  .refine((n) => !isReservedHeader(n), "Eventrail sets this header itself; it cannot be overridden")
  .refine(
    (n) => !isConnectionHeader(n),
    "A connection-level header: the HTTP client manages it, and setting it by hand would break every delivery",
  );

const headerValue = z
  .string()
  .min(1, "Enter a value")
  .max(2000, "At most 2000 characters")
  .refine(isHeaderValue, "Use visible ASCII characters, spaces and tabs only (no line breaks, control characters or non-ASCII)");

const headerSchema = z.object({ name: headerName, value: headerValue });

/**
 * In a PATCH, a header's value may be left out to keep the stored value of the header with that
 * name (values are write-only, so the form cannot send them back); null or "" removes the header.
 */
const headerPatchSchema = z.object({
  name: headerName,
  value: z.union([z.literal("").transform(() => null), z.null(), headerValue]).optional(),
});

/** Secrets are used exactly as entered (docs/signing.md#secrets): never trimmed, so surrounding whitespace is refused. */
const isUntrimmed = (v: string) => v === v.trim();
const noControl = (v: string) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const sharedSecretSchema = z
  .string()
  .max(200, "At most 200 characters")
  .superRefine((v, ctx) => {
    // One message: surrounding whitespace first (a trailing newline is both whitespace and a control character).
    if (!isUntrimmed(v)) ctx.addIssue({ code: "custom", message: "The shared secret cannot start or end with a space or line break" });
    else if (!noControl(v)) ctx.addIssue({ code: "custom", message: "The shared secret cannot contain control characters" });
  });

const standardSecretSchema = z.string().superRefine((v, ctx) => {
  // One message: surrounding whitespace first, since a trimmed copy may well be a valid secret.
  if (!isUntrimmed(v)) ctx.addIssue({ code: "custom", message: "The secret cannot start or end with a space or line break" });
  else if (!isStandardSecret(v)) {
    ctx.addIssue({ code: "custom", message: "A Standard Webhooks secret looks like whsec_ followed by base64 (24+ bytes)" });
  }
});

/** "" from an empty form field, or null, means "no secret": on create none is set, in a PATCH it is removed. */
const optionalSecret = (inner: z.ZodType<string>) => z.union([z.literal("").transform(() => null), z.null(), inner]).optional();

export const MAX_FILTER_EVENTS = 50;

/**
 * A destination filter (docs/routing.md#destination-filters): the call types the destination
 * receives, and for track calls all events, only the named ones (include) or all but them (exclude).
 * Names match exactly, case included. `where` adds conditions on what is inside the call
 * (docs/routing.md#conditions), `samplePercent` takes that share of the calls that pass
 * (docs/routing.md#sampling), and `drop` / `allow` shape the body sent (docs/routing.md#field-lists).
 * Each has a default that changes nothing, so a filter saved before them means what it meant.
 */
export const destinationFilterSchema = z
  .object({
    types: z
      .array(z.enum(FILTER_TYPES, { error: `One of ${FILTER_TYPES.join(", ")}` }))
      .min(1, "Choose at least one call type: with none, the destination would receive nothing")
      .refine((t) => new Set(t).size === t.length, "A call type is listed twice"),
    events: z.object({
      mode: z.enum(["all", "include", "exclude"], { error: 'One of "all", "include", "exclude"' }),
      names: z
        .array(z.string().trim().min(1, "Enter an event name").max(200, "At most 200 characters"))
        .max(MAX_FILTER_EVENTS, `At most ${MAX_FILTER_EVENTS} event names`)
        .default([]),
    }),
    where: filterConditionSchema.nullable().default(null),
    samplePercent: z
      .number("Enter a percentage")
      .min(0.01, "At least 0.01 %: to send nothing, disable the destination")
      .max(100, "At most 100 %")
      .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-9, "In steps of 0.01 %")
      .default(100),
    drop: dropListSchema.default([]),
    allow: allowListSchema.default([]),
  })
  .superRefine((f, ctx) => {
    const { mode, names } = f.events;
    if (mode !== "all" && names.length === 0) {
      ctx.addIssue({ code: "custom", path: ["events", "names"], message: `Name at least one track event to ${mode}` });
    }
    if (mode !== "all" && !f.types.includes("track")) {
      ctx.addIssue({ code: "custom", path: ["events", "mode"], message: "Event names apply to track calls: include the track type too" });
    }
    const seen = new Set<string>();
    names.forEach((n, i) => {
      if (seen.has(n)) ctx.addIssue({ code: "custom", path: ["events", "names", i], message: "This event name is already listed" });
      seen.add(n);
    });
  });
export type DestinationFilter = z.infer<typeof destinationFilterSchema>;

/** What a destination without a filter receives: every call. */
export const RECEIVE_ALL: DestinationFilter = {
  types: [...FILTER_TYPES],
  events: { mode: "all", names: [] },
  where: null,
  samplePercent: 100,
  drop: [],
  allow: [],
};

/** "" from an empty form field, or null: not given. */
const optionalText = (max: number) =>
  z
    .union([z.literal("").transform(() => null), z.null(), z.string().trim().max(max, `At most ${max} characters`)])
    .transform((v) => v || null);

/**
 * OAuth 2.0 client credentials (docs/endpoint-auth.md#oauth2): each request carries a bearer token
 * from the receiver's own authorization server. `clientSecret` is write-only: left out (or "") it
 * keeps the stored one, which a destination without one yet must be given.
 */
export const oauth2InputSchema = z.object(
  {
    type: z.literal("oauth2", { error: 'The only type is "oauth2"' }),
    tokenUrl: z
      .string("Enter the token URL")
      .trim()
      .min(1, "Enter the token URL")
      .max(2048, "At most 2048 characters")
      .refine(isHttpUrl, "Enter a full URL starting with http:// or https://")
      .refine((v) => !hasCredentials(v), "Credentials in a URL are not sent: enter them as client id and secret"),
    clientId: z.string("Enter the client id").trim().min(1, "Enter the client id").max(500, "At most 500 characters"),
    clientSecret: z
      .union([
        z.literal("").transform(() => undefined),
        z
          .string()
          .max(500, "At most 500 characters")
          .refine(isUntrimmed, "The client secret cannot start or end with a space or line break")
          .refine(noControl, "The client secret cannot contain control characters"),
      ])
      .optional(),
    scope: optionalText(1000).default(null),
    audience: optionalText(2048).default(null),
    method: z.enum(TOKEN_AUTH_METHODS, { error: `One of ${TOKEN_AUTH_METHODS.join(", ")}` }).default("client_secret_basic"),
  },
  { error: 'Authentication is {"type": "oauth2", "tokenUrl", "clientId", "clientSecret", …}, or null for none' },
);
export type OAuth2Input = z.infer<typeof oauth2InputSchema>;

/** The setting as responses show it: the client secret only as set / last 4. */
export const authDtoSchema = z.object({
  type: z.literal("oauth2"),
  tokenUrl: z.string(),
  clientId: z.string(),
  clientSecret: z.object({ set: z.boolean(), last4: z.string().nullable() }),
  scope: z.string().nullable(),
  audience: z.string().nullable(),
  method: z.enum(TOKEN_AUTH_METHODS),
  /** After a rotation with grace (docs/endpoint-auth.md#rotation): the old secret, tried while the new one is refused, until expiresAt. */
  previousClientSecret: z.object({ last4: z.string().nullable(), expiresAt: z.string() }).nullable(),
});
export type AuthDto = z.infer<typeof authDtoSchema>;

const PEM_MAX = 64 * 1024;
const pemText = (what: string, label: RegExp) =>
  z
    .string(`Paste the ${what} in PEM`)
    .max(PEM_MAX, `At most ${PEM_MAX / 1024} KB`)
    .refine((v) => label.test(v), `Paste the ${what} in PEM (-----BEGIN …-----)`);

/**
 * Mutual TLS (docs/endpoint-auth.md#mutual-tls): the client certificate and key each request
 * presents, and optionally a private CA this destination alone trusts. `clientKey` is write-only:
 * left out (or "") it keeps the stored one, which a destination without one yet must be given. The
 * server checks that each parses and that the key is the certificate's.
 */
export const tlsInputSchema = z.object(
  {
    clientCert: pemText("client certificate", /-----BEGIN CERTIFICATE-----/),
    clientKey: z.union([z.literal("").transform(() => undefined), pemText("client key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/)]).optional(),
    ca: z.union([z.literal("").transform(() => null), z.null(), pemText("CA certificate", /-----BEGIN CERTIFICATE-----/)]).default(null),
  },
  { error: 'Mutual TLS is {"clientCert", "clientKey", "ca"?} in PEM, or null for none' },
);
export type TlsInput = z.infer<typeof tlsInputSchema>;

/** The setting as responses show it: the certificate, its subject and end, the key only as set. */
export const tlsDtoSchema = z.object({
  clientCert: z.string(),
  subject: z.string(),
  expiresAt: z.string(),
  clientKey: z.object({ set: z.boolean(), last4: z.string().nullable() }),
  ca: z.string().nullable(),
  caSubject: z.string().nullable(),
  /** The certificate a rotation with grace replaced, still presented while the receiver refuses the new one (docs/endpoint-auth.md#rotation), until `expiresAt`. */
  previous: z.object({ subject: z.string(), expiresAt: z.string() }).nullable(),
});
export type TlsDto = z.infer<typeof tlsDtoSchema>;

export const RATE_LIMIT_MAX = { perSecond: 10_000, concurrency: 1_000 } as const;

const limitNumber = (what: string, max: number) =>
  z
    .number(`Enter a number of ${what}, or leave it empty for no limit`)
    .int("A whole number")
    .min(1, "At least 1")
    .max(max, `At most ${max}`);

/**
 * A destination's rate limit (docs/webhooks.md#rate-limits), held across all workers: deliveries per
 * second and deliveries in flight at once, each optional (null: no limit of that kind). Throttled
 * deliveries wait; they are never dropped and never count as attempts.
 */
export const rateLimitSchema = z.object({
  perSecond: limitNumber("deliveries per second", RATE_LIMIT_MAX.perSecond).nullable().default(null),
  concurrency: limitNumber("deliveries at once", RATE_LIMIT_MAX.concurrency).nullable().default(null),
});
export type RateLimitInput = z.infer<typeof rateLimitSchema>;
/** No limit of either kind: what a destination without one shows. */
export const NO_RATE_LIMIT: RateLimitInput = { perSecond: null, concurrency: null };

/** Ordered delivery (docs/webhooks.md#ordering): off, or per user (userId, else anonymousId). */
export const ORDERINGS = ["none", "perUser"] as const;
export type Ordering = (typeof ORDERINGS)[number];
/** docs/webhooks.md#hold-limit */
export const MAX_HOLD_MINUTES_DEFAULT = 60;

const fields = {
  name: z.string().trim().min(1, "Enter a name").max(100, "At most 100 characters"),
  urls: z.array(webhookUrlSchema).min(1, "Add at least one URL").max(MAX_URLS, `At most ${MAX_URLS} URLs`),
  headers: z.array(headerSchema).max(MAX_HEADERS, `At most ${MAX_HEADERS} headers`),
  sharedSecret: optionalSecret(sharedSecretSchema),
  standardWebhooks: z.boolean(),
  standardSecret: optionalSecret(standardSecretSchema),
  enabled: z.boolean(),
  sourceIds: z.array(z.string().uuid("Not a source id")).max(100, "At most 100 sources"),
  mode: z.enum(["any", "every"]),
  retryWindowMinutes: z
    .number("Enter a number of minutes")
    .int("Whole minutes")
    .min(1, "At least 1 minute")
    .max(10080, "At most 10080 minutes (7 days)"),
  /** null: every call (the default) */
  filter: destinationFilterSchema.nullable(),
  /** docs/request-shape.md#method */
  method: z.enum(METHODS, { error: `One of ${METHODS.join(", ")}` }),
  /** null: the seed's body (the default) */
  mapping: mappingSchema.nullable(),
  /** docs/webhooks.md#numbers: "canonical" (the default) or "exact" */
  numbers: z.enum(NUMBER_FORMS, { error: `One of ${NUMBER_FORMS.join(", ")}` }),
  /** null: one event per request (the default); docs/request-shape.md#batching */
  batch: batchSettingsSchema.nullable(),
  /** docs/webhooks.md#ordering: "none" (the default) or "perUser" */
  ordering: z.enum(ORDERINGS, { error: `One of ${ORDERINGS.join(", ")}` }),
  /** docs/webhooks.md#hold-limit */
  maxHoldMinutes: z
    .number("Enter a number of minutes")
    .int("Whole minutes")
    .min(1, "At least 1 minute")
    .max(10080, "At most 10080 minutes (7 days)"),
  /** null: no limit (the default) */
  rateLimit: rateLimitSchema.nullable(),
  /** null: no endpoint authentication (the default); docs/endpoint-auth.md */
  auth: oauth2InputSchema.nullable(),
  /** null: no client certificate (the default); docs/endpoint-auth.md#mutual-tls */
  tls: tlsInputSchema.nullable(),
};

type Checked = {
  urls?: string[];
  headers?: { name: string }[];
  sourceIds?: string[];
  batch?: { size: number; maxWaitMs: number } | null;
};

/** Duplicates are refused where the duplicate sits, so the form can point at it. */
function refuseDuplicates(v: Checked, ctx: z.RefinementCtx) {
  const seen = (list: string[] | undefined, path: string, message: string, norm: (s: string) => string = (s) => s) => {
    const set = new Set<string>();
    list?.forEach((item, i) => {
      const k = norm(item);
      if (set.has(k))
        ctx.addIssue({
          code: "custom",
          path: path
            .split(".")
            .concat(String(i))
            .concat(path === "headers" ? ["name"] : []),
          message,
        });
      set.add(k);
    });
  };
  seen(v.urls, "urls", "This URL is already listed");
  seen(
    v.headers?.map((h) => h.name),
    "headers",
    "This header is already listed",
    (s) => s.toLowerCase(),
  );
  seen(v.sourceIds, "sourceIds", "This source is already connected");
  const batch = batchProblem(v.urls, v.batch);
  if (batch) ctx.addIssue({ code: "custom", path: ["batch"], message: batch });
}

/**
 * The duplicate checks alone. zod runs an object's refinements only once all its fields are valid,
 * so a form that shows every error at once runs this beside the full schema and merges the two.
 */
export const destinationDuplicatesSchema = z
  .object({
    urls: z.array(z.string().trim()),
    headers: z.array(z.object({ name: z.string().trim() })),
    sourceIds: z.array(z.string()),
  })
  .superRefine(refuseDuplicates);

export const destinationInputSchema = z
  .object({
    ...fields,
    headers: fields.headers.default([]),
    standardWebhooks: fields.standardWebhooks.default(false),
    enabled: fields.enabled.default(true),
    sourceIds: fields.sourceIds.default([]),
    mode: fields.mode.default("any"),
    retryWindowMinutes: fields.retryWindowMinutes.default(RETRY_WINDOW_DEFAULT),
    filter: fields.filter.default(null),
    method: fields.method.default("POST"),
    mapping: fields.mapping.default(null),
    numbers: fields.numbers.default("canonical"),
    batch: fields.batch.default(null),
    ordering: fields.ordering.default("none"),
    maxHoldMinutes: fields.maxHoldMinutes.default(MAX_HOLD_MINUTES_DEFAULT),
    rateLimit: fields.rateLimit.default(null),
    auth: fields.auth.default(null),
    tls: fields.tls.default(null),
  })
  .superRefine(refuseDuplicates);

/**
 * PATCH (docs/management-api.md#resources): a field left out stays as it is. `sharedSecret` and
 * `standardSecret`: omitted keeps the stored secret, null or "" removes it, a string replaces it.
 * `auth` replaces the setting (null removes it); its `clientSecret` left out keeps the stored one.
 * `tls` likewise, its `clientKey` left out kept.
 * `headers` replaces the list; an entry without `value` keeps the stored value of that header name.
 */
export const destinationPatchSchema = z
  .object({ ...fields, headers: z.array(headerPatchSchema).max(MAX_HEADERS, `At most ${MAX_HEADERS} headers`) })
  .partial()
  .superRefine(refuseDuplicates);

export type DestinationInput = z.infer<typeof destinationInputSchema>;
export type DestinationPatch = z.infer<typeof destinationPatchSchema>;

/**
 * A write-only value as responses show it (docs/signing.md#secrets): whether it is set, and its last
 * 4 characters when it is long enough (12+) for those not to give most of it away.
 */
export const writeOnlyValueSchema = z.object({ set: z.boolean(), last4: z.string().nullable() });
export type WriteOnlyValue = z.infer<typeof writeOnlyValueSchema>;

export const HINT_MIN_LENGTH = 12;

/** The hint for a stored value: never the value itself. */
export const writeOnlyHint = (value: string | null | undefined): WriteOnlyValue =>
  value ? { set: true, last4: value.length >= HINT_MIN_LENGTH ? value.slice(-4) : null } : { set: false, last4: null };

/**
 * A rotation's previous secret while it still signs beside the new one (docs/signing.md#secret-rotation):
 * its hint (writeOnlyHint's last 4) and when its grace period ends. Never the secret.
 */
export const previousSecretSchema = z.object({ last4: z.string().nullable(), expiresAt: z.string() });
export type PreviousSecret = z.infer<typeof previousSecretSchema>;

export const destinationDtoSchema = z.object({
  id: z.string(),
  name: z.string(),
  urls: z.array(z.string()),
  headers: z.array(z.object({ name: z.string(), value: writeOnlyValueSchema })),
  sharedSecret: writeOnlyValueSchema,
  standardWebhooks: z.boolean(),
  standardSecret: writeOnlyValueSchema,
  /** The shared secret before the last rotation while its grace period lasts (X-Signature is still its signature), else null. */
  previousSharedSecret: previousSecretSchema.nullable(),
  /** The Standard Webhooks secret before the last rotation while it still signs in webhook-signature, else null. */
  previousStandardSecret: previousSecretSchema.nullable(),
  enabled: z.boolean(),
  mode: z.enum(["any", "every"]),
  retryWindowMinutes: z.number().int(),
  /** Which calls it receives; a destination without a filter shows RECEIVE_ALL. */
  filter: destinationFilterSchema,
  method: z.enum(METHODS),
  /** null: the seed's body */
  mapping: z.record(z.string(), z.unknown()).nullable(),
  /** How bodies write integers beyond 2^53 (docs/webhooks.md#numbers) */
  numbers: z.enum(NUMBER_FORMS),
  /** null: one event per request; else events go in batches (docs/request-shape.md#batching) */
  batch: batchSettingsSchema.nullable(),
  /** docs/webhooks.md#ordering: "perUser" holds a user's later messages while an earlier one is pending */
  ordering: z.enum(ORDERINGS),
  /** docs/webhooks.md#hold-limit: how long a message waits behind an earlier one at most */
  maxHoldMinutes: z.number().int(),
  /** When it was paused (docs/routing.md#pause), or null while it runs: its deliveries wait meanwhile. */
  pausedAt: z.string().nullable(),
  /** docs/webhooks.md#rate-limits; a destination without one shows both null. */
  rateLimit: z.object({ perSecond: z.number().int().nullable(), concurrency: z.number().int().nullable() }),
  /** Endpoint authentication (docs/endpoint-auth.md), its client secret write-only; null: none. */
  auth: authDtoSchema.nullable(),
  /** Mutual TLS (docs/endpoint-auth.md#mutual-tls), its key write-only; null: none. */
  tls: tlsDtoSchema.nullable(),
  sourceIds: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type DestinationDto = z.infer<typeof destinationDtoSchema>;

/**
 * A saved destination, with what the save warns about (not refused): a URL on a private or loopback
 * network, which deliveries refuse unless the server allows private networks. `field` as in
 * field errors (`urls.1`), `message` names the setting (docs/webhooks.md#outbound-safety).
 */
export const savedDestinationSchema = destinationDtoSchema.extend({
  warnings: z.array(z.object({ field: z.string(), message: z.string() })),
});
export type SavedDestinationDto = z.infer<typeof savedDestinationSchema>;

/** "Send test": one sample message of `type` (docs/management-api.md#resources), `payload` merged over the sample. */
export const testSendSchema = z.object({
  type: z.enum(MESSAGE_TYPES),
  url: webhookUrlSchema.optional(),
  payload: z.record(z.string(), z.unknown()).superRefine(checkTestPayload).optional(),
});

/**
 * The Tracking API's limits (lib/tracking/limits.ts, docs/tracking-api.md#limits), which a test
 * message meets too: its ids land in the same indexed columns, its payload in the same jsonb.
 */
export const TEST_PAYLOAD_LIMITS = { messageIdChars: 100, idBytes: 512, payloadBytes: 32 * 1024, depth: 64 } as const;
const ID_FIELDS = ["userId", "anonymousId", "event", "groupId", "previousId"] as const;

function depthOf(v: unknown, limit: number, depth = 0): number {
  if (depth > limit || v === null || typeof v !== "object") return depth;
  let deepest = depth;
  for (const child of Object.values(v)) deepest = Math.max(deepest, depthOf(child, limit, depth + 1));
  return deepest;
}

function checkTestPayload(p: Record<string, unknown>, ctx: z.RefinementCtx) {
  const L = TEST_PAYLOAD_LIMITS;
  if (p.messageId !== undefined && (typeof p.messageId !== "string" || p.messageId.length > L.messageIdChars || p.messageId === "")) {
    ctx.addIssue({ code: "custom", path: ["messageId"], message: `A messageId is a text of 1 to ${L.messageIdChars} characters` });
  }
  for (const key of ID_FIELDS) {
    const v = p[key];
    if (typeof v === "string" && new TextEncoder().encode(v).length > L.idBytes) {
      ctx.addIssue({ code: "custom", path: [key], message: `At most ${L.idBytes} bytes` });
    }
  }
  if (depthOf(p, L.depth) > L.depth) ctx.addIssue({ code: "custom", message: `Nested more than ${L.depth} levels deep` });
  else if (new TextEncoder().encode(JSON.stringify(p)).length > L.payloadBytes) {
    ctx.addIssue({ code: "custom", message: `At most ${L.payloadBytes / 1024} KB of JSON, like a tracked message` });
  }
}

/** `POST /api/destinations/{id}/reveal`: one write-only value, by secret or by header name. */
/** The write-only secrets reveal names: the signing secrets and the endpoint credentials (docs/endpoint-auth.md). */
export const REVEALABLE_SECRETS = ["sharedSecret", "standardSecret", "authClientSecret", "tlsClientKey"] as const;
export const revealSchema = z
  .object({
    secret: z.enum(REVEALABLE_SECRETS, { error: 'Name "sharedSecret", "standardSecret", "authClientSecret" or "tlsClientKey"' }).optional(),
    header: z.string().min(1, "Name a header").max(100, "At most 100 characters").optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.secret === !v.header) ctx.addIssue({ code: "custom", path: ["secret"], message: "Name either a secret or a header" });
  });
export type RevealInput = z.infer<typeof revealSchema>;
export const revealedSchema = z.object({ value: z.string() });

/**
 * `POST /api/destinations/{id}/rotate-secret` (docs/signing.md#secret-rotation): a new secret that
 * signs at once; the current one keeps signing beside it for `graceMinutes` (the same choices as a
 * write key's rotation: none, 1 hour, 24 hours, 7 days in the dashboard; 0 to 10080 minutes in the
 * API). `value` chooses the new secret; without it one is generated. The endpoint credentials are
 * issued elsewhere, so they are named: `authClientSecret` takes the new client secret in `value`;
 * `tlsClientKey` the new client key in `value` and its certificate in `clientCert`
 * (docs/endpoint-auth.md#rotation).
 */
export const ROTATABLE_SECRETS = ["sharedSecret", "standardSecret", "authClientSecret", "tlsClientKey"] as const;
export const rotateSecretSchema = z
  .object({
    secret: z.enum(ROTATABLE_SECRETS, { error: 'Name "sharedSecret", "standardSecret", "authClientSecret" or "tlsClientKey"' }),
    graceMinutes: z
      .number("A number of minutes")
      .int("Whole minutes")
      .min(0, "At least 0 (the current secret stops signing at once)")
      .max(MAX_ROTATION_GRACE_MINUTES, `At most ${MAX_ROTATION_GRACE_MINUTES} minutes (7 days)`)
      .default(0),
    value: z.string().optional(),
    /** `tlsClientKey` only: the certificate of the new key, in PEM */
    clientCert: z.string().optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.secret !== "tlsClientKey" && v.clientCert !== undefined)
      ctx.addIssue({ code: "custom", path: ["clientCert"], message: "Only a client key's rotation takes a certificate" });
    if (v.secret === "tlsClientKey") {
      // A certificate and its key come from the user's CA: both are named (docs/endpoint-auth.md#rotation).
      const cert = tlsInputSchema.shape.clientCert.safeParse(v.clientCert);
      if (!v.clientCert) ctx.addIssue({ code: "custom", path: ["clientCert"], message: "Paste the new client certificate" });
      else if (!cert.success)
        for (const issue of cert.error.issues) ctx.addIssue({ code: "custom", path: ["clientCert"], message: issue.message });
      const key = tlsInputSchema.shape.clientKey.safeParse(v.value);
      if (!v.value) ctx.addIssue({ code: "custom", path: ["value"], message: "Paste the new client key" });
      else if (!key.success)
        for (const issue of key.error.issues) ctx.addIssue({ code: "custom", path: ["value"], message: issue.message });
      return;
    }
    if (v.secret === "authClientSecret") {
      // The authorization server issues client secrets: Eventrail cannot make one up (docs/endpoint-auth.md#rotation).
      const checked = oauth2InputSchema.shape.clientSecret.safeParse(v.value);
      if (v.value === undefined || v.value === "")
        ctx.addIssue({ code: "custom", path: ["value"], message: "Enter the new client secret your authorization server issued" });
      else if (!checked.success)
        for (const issue of checked.error.issues) ctx.addIssue({ code: "custom", path: ["value"], message: issue.message });
      return;
    }
    if (v.value === undefined) return;
    const checked = (v.secret === "sharedSecret" ? sharedSecretSchema.min(1, "Enter the new secret") : standardSecretSchema).safeParse(
      v.value,
    );
    if (!checked.success)
      for (const issue of checked.error.issues) ctx.addIssue({ code: "custom", path: ["value"], message: issue.message });
  });
export type RotateSecretInput = z.infer<typeof rotateSecretSchema>;
/** The new secret, in this answer only (secrets are write-only: no later response shows it), and the destination. */
export const rotatedSecretSchema = z.object({ value: z.string(), destination: destinationDtoSchema });
export type RotatedSecret = z.infer<typeof rotatedSecretSchema>;
export type TestSendInput = z.infer<typeof testSendSchema>;

/**
 * The test message's attempts, one per URL it went to, as the request log shows them; `filter` says
 * whether the destination's filter would let such a message through (a test is sent either way).
 */
export const testSendResultSchema = z.object({
  attempts: z.array(attemptDetailDtoSchema),
  filter: z.object({ passes: z.boolean(), reason: z.string().nullable() }),
});
export type TestSendResult = z.infer<typeof testSendResultSchema>;

/**
 * Endpoint health of one destination URL, judged from its recent attempts (lib/destinations/health.ts):
 * `unhealthy` keeps failing, `degraded` fails now and then or has just started to, `unknown` has no recent attempt.
 */
export const endpointStateSchema = z.enum(["healthy", "degraded", "unhealthy", "unknown"]);
export const endpointHealthSchema = z.object({
  url: z.string(),
  state: endpointStateSchema,
  /** attempts the judgement is based on (at most SAMPLE_PER_URL, within WINDOW_HOURS) */
  attempts: z.number().int(),
  successRate: z.number().nullable(),
  /** failed attempts since the last success (counted within the sample) */
  consecutiveFailures: z.number().int(),
  lastSuccessAt: z.string().nullable(),
  lastFailureAt: z.string().nullable(),
  lastError: z.string().nullable(),
});
/** `disabled`: the endpoint alerts disabled the URL after days of failure (docs/alerts.md#disabling). */
export const destinationHealthDtoSchema = z.object({
  destinationId: z.string(),
  urls: z.array(endpointHealthSchema.extend({ disabled: z.boolean() })),
  /** Deliveries not yet delivered or failed, and when the oldest of them was made: a backlog a rate limit or a slow endpoint holds back (docs/webhooks.md#rate-limits). */
  backlog: z.object({ pending: z.number().int(), oldestPendingAt: z.string().nullable() }),
  /**
   * Users (order keys) with messages held behind an earlier one of theirs (docs/webhooks.md#ordering),
   * most held first, at most 50: how many, since when, and the messageId of the message holding them.
   */
  heldKeys: z.array(z.object({ key: z.string(), held: z.number().int(), since: z.string(), heldBy: z.string().nullable() })),
});
export type EndpointState = z.infer<typeof endpointStateSchema>;
export type EndpointHealth = z.infer<typeof endpointHealthSchema>;
export type DestinationHealthDto = z.infer<typeof destinationHealthDtoSchema>;

/** `POST /api/destinations/filter-preview`: how a filter would treat the recent calls of some sources. */
export const FILTER_PREVIEW_DEFAULT = 200;
export const filterPreviewSchema = z.object({
  sourceIds: z.array(z.string().uuid("Not a source id")).max(100, "At most 100 sources"),
  filter: destinationFilterSchema,
  limit: z.number().int("A whole number").min(1, "At least 1").max(1000, "At most 1000").default(FILTER_PREVIEW_DEFAULT),
});
export type FilterPreviewInput = z.infer<typeof filterPreviewSchema>;
export const filterPreviewResultSchema = z.object({
  /** The most recent calls of the sources looked at (at most `limit`), and how many of them the filter passes. */
  considered: z.number().int(),
  passed: z.number().int(),
  /** The same split by call type, and for track calls by event name (the 20 most frequent). */
  byType: z.array(z.object({ type: z.string(), considered: z.number().int(), passed: z.number().int() })),
  byEvent: z.array(z.object({ event: z.string(), considered: z.number().int(), passed: z.number().int() })),
  /** The calls left out, each under the first rule that left it out. */
  excluded: z.object({
    integrations: z.number().int(),
    typeOrEvent: z.number().int(),
    conditions: z.number().int(),
    sampling: z.number().int(),
  }),
  /** The newest call that passes: its body as built, and as sent after the drop and allow lists; null when none passes. */
  example: z
    .object({ messageId: z.string(), built: z.record(z.string(), z.unknown()), sent: z.record(z.string(), z.unknown()) })
    .nullable(),
});
export type FilterPreviewResult = z.infer<typeof filterPreviewResultSchema>;

export const MAPPING_PREVIEW_DEFAULT = 5;

/**
 * The request-shape preview (docs/request-shape.md#preview): the request each of the sources' most
 * recent calls would make with this method, mapping and URLs, before anything is saved.
 */
export const mappingPreviewSchema = z.object({
  sourceIds: z.array(z.string().uuid("Not a source id")).max(100, "At most 100 sources"),
  urls: fields.urls,
  method: fields.method.default("POST"),
  mapping: fields.mapping.default(null),
  numbers: fields.numbers.default("canonical"),
  /** Custom header names (values are write-only; the preview shows them masked, as the attempt log does). */
  headers: z
    .array(z.object({ name: z.string().trim().max(100, "At most 100 characters") }))
    .max(MAX_HEADERS)
    .default([]),
  limit: z.number().int("A whole number").min(1, "At least 1").max(20, "At most 20").default(MAPPING_PREVIEW_DEFAULT),
});
export type MappingPreviewInput = z.infer<typeof mappingPreviewSchema>;
export const mappingPreviewResultSchema = z.object({
  requests: z.array(
    z.object({
      messageId: z.string(),
      type: z.string(),
      event: z.string().nullable(),
      method: z.enum(METHODS),
      /** Each URL as it would be requested, or why that URL would get nothing for this call. */
      urls: z.array(z.object({ url: z.string(), sendTo: z.string().nullable(), error: z.string().nullable() })),
      headers: z.record(z.string(), z.string()),
      /** The exact body (null when the mapping cannot apply to this call: see the urls' error). */
      body: z.string().nullable(),
    }),
  ),
});
export type MappingPreviewResult = z.infer<typeof mappingPreviewResultSchema>;

const id = { path: "/api/destinations/{id}" } as const;

export const destinationEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/destinations",
    access: "viewer",
    summary: "List the workspace's destinations",
    response: z.object({ destinations: z.array(destinationDtoSchema) }),
  }),
  create: endpoint({
    method: "POST",
    path: "/api/destinations",
    access: "admin",
    summary: `Create a destination: webhook URLs, headers, signing and the sources it receives from (at most ${DESTINATION_LIMITS.perWorkspace} per workspace, ${DESTINATION_LIMITS.perSource} per source)`,
    body: destinationInputSchema,
    response: savedDestinationSchema,
    status: 201,
  }),
  get: endpoint({ method: "GET", ...id, access: "viewer", summary: "One destination", response: destinationDtoSchema }),
  update: endpoint({
    method: "PATCH",
    ...id,
    access: "admin",
    summary:
      'Change some of a destination\'s settings; fields not given stay as they are (a secret: omitted keeps it, null or "" removes it)',
    body: destinationPatchSchema,
    response: savedDestinationSchema,
  }),
  remove: endpoint({
    method: "DELETE",
    ...id,
    access: "admin",
    summary: "Delete a destination and its pending deliveries; its attempts stay in the log",
  }),
  test: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/test",
    access: "admin",
    summary: "Send a signed sample message of a type to the destination's URLs (or one URL) now, without retries",
    body: testSendSchema,
    response: testSendResultSchema,
  }),
  reveal: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/reveal",
    access: "admin",
    summary:
      'Reveal one write-only value: {"secret": "sharedSecret" | "standardSecret" | "authClientSecret" | "tlsClientKey"} or {"header": "<name>"}',
    body: revealSchema,
    response: revealedSchema,
  }),
  rotateSecret: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/rotate-secret",
    access: "admin",
    summary:
      'Rotate the shared or Standard Webhooks secret: the new one (generated, or `value`) signs at once and is in this answer only; the current one keeps signing beside it for `graceMinutes` (0 to 10080, default 0). Body: `{"secret": "sharedSecret", "graceMinutes": 1440}`',
    body: rotateSecretSchema,
    response: rotatedSecretSchema,
  }),
  filterPreview: endpoint({
    method: "POST",
    path: "/api/destinations/filter-preview",
    access: "viewer",
    summary:
      "Preview a filter: how many of the recent calls of the given sources it would pass (by type, event name, conditions and sampling), and the newest one's body as sent after the drop and allow lists",
    body: filterPreviewSchema,
    response: filterPreviewResultSchema,
  }),
  mappingPreview: endpoint({
    method: "POST",
    path: "/api/destinations/mapping-preview",
    access: "viewer",
    summary:
      "Preview a request shape: the method, URL, headers and body each of the sources' recent calls would be sent with (signature headers are added when sent)",
    body: mappingPreviewSchema,
    response: mappingPreviewResultSchema,
  }),
  pause: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/pause",
    access: "admin",
    summary: "Pause a destination: its deliveries wait, not attempted, failed or dropped, until it is resumed (a paused one stays paused)",
    response: destinationDtoSchema,
  }),
  resume: endpoint({
    method: "POST",
    path: "/api/destinations/{id}/resume",
    access: "admin",
    summary: "Resume a paused destination: its waiting deliveries go at once, their retry windows moved on by the pause",
    response: destinationDtoSchema,
  }),
  health: endpoint({
    method: "GET",
    path: "/api/destinations/{id}/health",
    access: "viewer",
    summary: "Each URL's endpoint health from its recent attempts: state, success rate, failures in a row, last error",
    response: destinationHealthDtoSchema,
  }),
};
