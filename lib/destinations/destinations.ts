import "server-only";
import crypto from "node:crypto";
import { Prisma } from "../platform/generated/prisma/client";
import { prisma } from "../platform/db";
import { AppError, assertUuid, notFound } from "../platform/errors";
import { generateStandardSecret } from "../webhooks/signing";
import { privateTargetWarning } from "../webhooks/dispatchers";
import type { SigningSettings } from "../webhooks/request";
import type { Method, NumberForm } from "../webhooks/request-shape";
import { batchProblem, storedBatch, type BatchSettings } from "../webhooks/batching";
import { storedAuth, storedTls } from "../webhooks/endpoint-auth";
import { checkClientTls, describeCertificate } from "../webhooks/client-tls";
import { authColumn, authDto, endpointAuthAuditView, tlsColumn, tlsDto } from "./endpoint-auth";
import {
  DESTINATION_LIMITS,
  destinationFilterSchema,
  RECEIVE_ALL,
  writeOnlyHint,
  type DestinationFilter,
  type DestinationDto,
  type DestinationInput,
  type DestinationPatch,
  type PreviousSecret,
  type RateLimitInput,
  type RevealInput,
  type RotatedSecret,
  type RotateSecretInput,
  type SavedDestinationDto,
} from "./contract";
import { mergeHeaders, type StoredHeader } from "./headers";
import { recordAudit, type Actor } from "../audit/record";
import { diffFields } from "../audit/diff";
import { storedSettings } from "./stored";

/** A destination as the audit log compares it: header values and secrets only ever as "changed". */
const auditView = (r: Row) => ({
  name: r.name,
  urls: r.urls,
  headers: storedHeaders(r).map((h) => h.name),
  headerValues: storedHeaders(r).map((h) => h.value),
  sharedSecret: r.sharedSecret,
  standardWebhooks: r.standardWebhooks,
  standardSecret: r.standardSecret,
  enabled: r.enabled,
  mode: r.mode,
  retryWindowMinutes: r.retryWindowMinutes,
  method: r.method,
  mapping: r.mapping,
  numbers: r.numbers,
  batch: r.batch,
  ordering: r.ordering,
  maxHoldMinutes: r.maxHoldMinutes,
  filter: r.filter,
  rateLimitPerSecond: r.rateLimitPerSecond,
  rateLimitConcurrency: r.rateLimitConcurrency,
  ...endpointAuthAuditView(storedAuth(r.auth), storedTls(r.tls)),
  sourceIds: r.sources.map((x) => x.sourceId).sort(),
});
const SECRET_FIELDS = ["headerValues", "sharedSecret", "standardSecret", "authClientSecret", "tlsClientKey"] as const;

type Change = { workspaceId: string; actor: Actor };
const audit = (tx: Tx, opts: Change, action: string, before: Row | null, after: Row | null) =>
  recordAudit(tx, {
    workspaceId: opts.workspaceId,
    actor: opts.actor,
    action,
    resourceType: "destination",
    resourceId: (after ?? before)?.id,
    changes: diffFields(before && auditView(before), after && auditView(after), { secret: SECRET_FIELDS }),
  });

const select = {
  id: true,
  name: true,
  urls: true,
  headers: true,
  sharedSecret: true,
  standardWebhooks: true,
  standardSecret: true,
  previousSharedSecret: true,
  previousSharedSecretExpiresAt: true,
  previousStandardSecret: true,
  previousStandardSecretExpiresAt: true,
  enabled: true,
  mode: true,
  retryWindowMinutes: true,
  filter: true,
  method: true,
  mapping: true,
  numbers: true,
  batch: true,
  ordering: true,
  maxHoldMinutes: true,
  pausedAt: true,
  rateLimitPerSecond: true,
  rateLimitConcurrency: true,
  auth: true,
  tls: true,
  createdAt: true,
  updatedAt: true,
  sources: { select: { sourceId: true } },
} satisfies Prisma.DestinationSelect;
type Row = Prisma.DestinationGetPayload<{ select: typeof select }>;

const storedHeaders = (r: Row): StoredHeader[] => storedSettings(r).headers;

/** The stored filter (written through the contract's schema); none, or one that no longer parses, receives all. */
export const storedFilter = (raw: unknown): DestinationFilter | null => {
  if (raw === null || raw === undefined) return null;
  const parsed = destinationFilterSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
};

/** null in the column means "every call" (docs/routing.md#destination-filters). */
const filterColumn = (f: DestinationFilter | null) => (f === null ? Prisma.DbNull : f);

/** null in the column: the seed's body (docs/request-shape.md#mapping). */
const mappingColumn = (m: Record<string, unknown> | null) => (m === null ? Prisma.DbNull : (m as Prisma.InputJsonObject));
/** null in the column: one event per request (docs/request-shape.md#batching). */
const batchColumn = (b: BatchSettings | null) => (b === null ? Prisma.DbNull : b);

/** A previous secret while its grace period lasts (docs/signing.md#secret-rotation): its hint and end; ended, nothing to show. */
function previousSecret(secret: string | null, expiresAt: Date | null, now = Date.now()): PreviousSecret | null {
  if (!secret || !expiresAt || expiresAt.getTime() <= now) return null;
  return { last4: writeOnlyHint(secret).last4, expiresAt: expiresAt.toISOString() };
}
/** null: no limit of either kind (docs/webhooks.md#rate-limits). */
const rateLimitColumns = (l: RateLimitInput | null) => ({
  rateLimitPerSecond: l?.perSecond ?? null,
  rateLimitConcurrency: l?.concurrency ?? null,
});

/** Secrets and header values are write-only (docs/signing.md#secrets): the DTO says whether each is set, never what. */
const toDto = (r: Row): DestinationDto => {
  const stored = storedSettings(r);
  return {
    id: r.id,
    name: r.name,
    urls: r.urls,
    headers: stored.headers.map((h) => ({ name: h.name, value: writeOnlyHint(h.value) })),
    sharedSecret: writeOnlyHint(r.sharedSecret),
    standardWebhooks: r.standardWebhooks,
    standardSecret: writeOnlyHint(r.standardSecret),
    previousSharedSecret: r.sharedSecret ? previousSecret(r.previousSharedSecret, r.previousSharedSecretExpiresAt) : null,
    previousStandardSecret: r.standardSecret ? previousSecret(r.previousStandardSecret, r.previousStandardSecretExpiresAt) : null,
    enabled: r.enabled,
    mode: stored.mode,
    retryWindowMinutes: r.retryWindowMinutes,
    filter: storedFilter(r.filter) ?? RECEIVE_ALL,
    method: stored.method,
    mapping: stored.mapping,
    numbers: stored.numbers,
    batch: stored.batch,
    ordering: stored.ordering,
    maxHoldMinutes: stored.maxHoldMinutes,
    pausedAt: r.pausedAt?.toISOString() ?? null,
    rateLimit: stored.rateLimit,
    auth: authDto(r.auth),
    tls: tlsDto(r.tls),
    sourceIds: r.sources.map((s) => s.sourceId),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
};

type Tx = Prisma.TransactionClient;

/**
 * Connected sources must be the workspace's own, and each may feed at most DESTINATION_LIMITS.perSource
 * destinations (docs/webhooks.md#limits): otherwise a 422 on the offending entries, nothing saved.
 */
async function checkSources(tx: Tx, opts: { workspaceId: string; sourceIds: string[]; destinationId?: string }): Promise<void> {
  const { workspaceId, sourceIds } = opts;
  if (sourceIds.length === 0) return;
  const found = await tx.source.findMany({ where: { workspaceId, id: { in: sourceIds } }, select: { id: true } });
  const ok = new Set(found.map((s) => s.id));
  const fanOut = await tx.destinationSource.groupBy({
    by: ["sourceId"],
    where: { sourceId: { in: sourceIds }, ...(opts.destinationId ? { destinationId: { not: opts.destinationId } } : {}) },
    _count: { _all: true },
  });
  const connected = new Map(fanOut.map((g) => [g.sourceId, g._count._all]));
  const fields: Record<string, string[]> = {};
  sourceIds.forEach((id, i) => {
    if (!ok.has(id)) fields[`sourceIds.${i}`] = ["No such source in this workspace"];
    else if ((connected.get(id) ?? 0) >= DESTINATION_LIMITS.perSource) {
      fields[`sourceIds.${i}`] = [
        `This source already sends to ${DESTINATION_LIMITS.perSource} destinations, the most one source can have; disconnect one first`,
      ];
    }
  });
  if (Object.keys(fields).length) throw new AppError("validation_failed", "Some fields are invalid", fields);
}

/**
 * Destination writes of a workspace take its row lock, so the fan-out ceilings hold under concurrent
 * requests (500 parallel creates made 500 destinations before they existed).
 */
async function inWorkspaceLock<T>(workspaceId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return prisma().$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId}::uuid FOR UPDATE`;
      return work(tx);
    },
    // Writes queue behind the lock (a few ms each); Prisma's defaults (2 s to start, 5 s to run) would
    // turn a burst of creates into errors instead of a wait and a clear 409.
    { maxWait: 15_000, timeout: 15_000 },
  );
}

/**
 * Standard Webhooks signs when its secret is set (docs/signing.md#standard-webhooks). The older
 * `standardWebhooks` flag is still accepted: true switches signing on (a secret is generated when
 * there is none), false switches it off unless a secret comes with it.
 */
function standardSecretFor(flag: boolean | undefined, given: string | null | undefined, current: string | null): string | null {
  if (given) return given;
  if (given === null || flag === false) return flag ? generateStandardSecret() : null;
  return current ?? (flag ? generateStandardSecret() : null);
}

/** The secret and the column that mirrors it (on exactly when the secret is set). */
const standardSigning = (standardSecret: string | null) => ({ standardSecret, standardWebhooks: standardSecret !== null });

export async function listDestinations(opts: { workspaceId: string }): Promise<DestinationDto[]> {
  const rows = await prisma().destination.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "asc" }, select });
  return rows.map(toDto);
}

async function findRow(opts: { workspaceId: string; id: string }, db: Tx = prisma()): Promise<Row> {
  // Not a uuid: no such destination (Postgres would refuse the comparison). Any other error, a
  // database outage included, is not a 404 and goes up as it is.
  assertUuid(opts.id, "Destination");
  const row = await db.destination.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select });
  if (!row) throw notFound("Destination");
  return row;
}

export async function getDestination(opts: { workspaceId: string; id: string }): Promise<DestinationDto> {
  return toDto(await findRow(opts));
}

/** What signing a request to this destination needs, secrets included: for the server's own use, never for a response. */
export async function loadSigningSettings(opts: { workspaceId: string; id: string }): Promise<
  SigningSettings & {
    id: string;
    name: string;
    urls: string[];
    filter: DestinationFilter | null;
    method: Method;
    mapping: Record<string, unknown> | null;
    numbers: NumberForm;
  }
> {
  const row = await findRow(opts);
  const stored = storedSettings(row);
  return {
    id: row.id,
    name: row.name,
    filter: storedFilter(row.filter),
    method: stored.method,
    mapping: stored.mapping,
    numbers: stored.numbers,
    urls: row.urls,
    headers: stored.headers,
    sharedSecret: row.sharedSecret,
    standardWebhooks: row.standardWebhooks,
    standardSecret: row.standardSecret,
    previousSharedSecret: row.previousSharedSecret,
    previousSharedSecretExpiresAt: row.previousSharedSecretExpiresAt,
    previousStandardSecret: row.previousStandardSecret,
    previousStandardSecretExpiresAt: row.previousStandardSecretExpiresAt,
    fieldLists: stored.fieldLists,
  };
}

export async function createDestination(opts: Change & { input: DestinationInput }): Promise<SavedDestinationDto> {
  const { input, workspaceId } = opts;
  const row = await inWorkspaceLock(workspaceId, async (tx) => {
    const count = await tx.destination.count({ where: { workspaceId } });
    if (count >= DESTINATION_LIMITS.perWorkspace) {
      throw new AppError(
        "conflict",
        `A workspace can have at most ${DESTINATION_LIMITS.perWorkspace} destinations; delete one first (docs/webhooks.md#limits)`,
      );
    }
    await checkSources(tx, { workspaceId, sourceIds: input.sourceIds });
    const created = await tx.destination.create({
      data: {
        workspaceId,
        name: input.name,
        urls: input.urls,
        headers: input.headers,
        sharedSecret: input.sharedSecret ?? null,
        ...standardSigning(standardSecretFor(input.standardWebhooks, input.standardSecret, null)),
        enabled: input.enabled,
        mode: input.mode,
        retryWindowMinutes: input.retryWindowMinutes,
        filter: filterColumn(input.filter),
        method: input.method,
        mapping: mappingColumn(input.mapping),
        numbers: input.numbers,
        batch: batchColumn(input.batch),
        ordering: input.ordering,
        maxHoldMinutes: input.maxHoldMinutes,
        ...rateLimitColumns(input.rateLimit),
        auth: authColumn(input.auth, null),
        tls: tlsColumn(input.tls, null),
        sources: { create: input.sourceIds.map((sourceId) => ({ sourceId })) },
      },
      select,
    });
    await audit(tx, opts, "destination.create", null, created);
    return created;
  });
  return withWarnings(toDto(row));
}

export async function updateDestination(opts: Change & { id: string; input: DestinationPatch }): Promise<SavedDestinationDto> {
  const { input, workspaceId } = opts;
  const row = await inWorkspaceLock(workspaceId, async (tx) => {
    const current = await findRow(opts, tx);
    if (input.sourceIds) await checkSources(tx, { workspaceId, sourceIds: input.sourceIds, destinationId: current.id });
    const headers = input.headers === undefined ? undefined : mergeHeaders(storedHeaders(current), input.headers);
    // The patch alone cannot see the stored half of the pair (docs/request-shape.md#batching).
    const batchVsUrls = batchProblem(input.urls ?? current.urls, input.batch === undefined ? storedBatch(current.batch) : input.batch);
    if (batchVsUrls) throw new AppError("validation_failed", "Some fields are invalid", { batch: [batchVsUrls] });
    const standard = standardSigning(standardSecretFor(input.standardWebhooks, input.standardSecret, current.standardSecret));
    const updated = await tx.destination.update({
      where: { id: current.id },
      data: {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.urls !== undefined && { urls: input.urls }),
        ...(headers !== undefined && { headers }),
        // Omitted keeps the secret; null (or "", read as null by the contract) removes it.
        ...(input.sharedSecret !== undefined && { sharedSecret: input.sharedSecret }),
        // A secret replaced or removed here takes effect at once: it ends a rotation's grace period
        // (docs/signing.md#secret-rotation), whose previous secret was the one before the replaced one.
        ...(input.sharedSecret !== undefined &&
          input.sharedSecret !== current.sharedSecret && { previousSharedSecret: null, previousSharedSecretExpiresAt: null }),
        ...(standard.standardSecret !== current.standardSecret && { previousStandardSecret: null, previousStandardSecretExpiresAt: null }),
        ...(input.enabled !== undefined && { enabled: input.enabled }),
        ...(input.mode !== undefined && { mode: input.mode }),
        ...(input.retryWindowMinutes !== undefined && { retryWindowMinutes: input.retryWindowMinutes }),
        ...(input.filter !== undefined && { filter: filterColumn(input.filter) }),
        ...(input.method !== undefined && { method: input.method }),
        ...(input.mapping !== undefined && { mapping: mappingColumn(input.mapping) }),
        ...(input.numbers !== undefined && { numbers: input.numbers }),
        ...(input.batch !== undefined && { batch: batchColumn(input.batch) }),
        ...(input.ordering !== undefined && { ordering: input.ordering }),
        ...(input.maxHoldMinutes !== undefined && { maxHoldMinutes: input.maxHoldMinutes }),
        ...(input.rateLimit !== undefined && rateLimitColumns(input.rateLimit)),
        ...(input.auth !== undefined && { auth: authColumn(input.auth, storedAuth(current.auth)) }),
        ...(input.tls !== undefined && { tls: tlsColumn(input.tls, storedTls(current.tls)) }),
        ...standard,
        ...(input.sourceIds !== undefined && {
          sources: { deleteMany: {}, create: input.sourceIds.map((sourceId) => ({ sourceId })) },
        }),
      },
      select,
    });
    // A new limit books turns afresh: those booked under the old one do not push new ones back (docs/webhooks.md#rate-limits).
    if (input.rateLimit !== undefined)
      await tx.rateLimitState.updateMany({ where: { destinationId: current.id }, data: { bookedUntil: new Date() } });
    await audit(tx, opts, "destination.update", current, updated);
    return updated;
  });
  return withWarnings(toDto(row));
}

/**
 * Deleting a destination removes its deliveries in the same transaction; the request log keeps its
 * history. No foreign key does it (docs/architecture.md#foreign-keys-on-the-hot-path): the
 * destination first, then its deliveries by deliveries(destination_id), so the
 * second statement's snapshot also sees deliveries an ingest committed meanwhile. One that commits
 * later still is dropped by the worker (lib/delivery/load.ts).
 */
export async function deleteDestination(opts: Change & { id: string }): Promise<void> {
  await prisma().$transaction(async (tx) => {
    const current = await findRow(opts, tx);
    await tx.destination.delete({ where: { id: opts.id } });
    await tx.$executeRaw`DELETE FROM deliveries WHERE destination_id = ${opts.id}::uuid`;
    await audit(tx, opts, "destination.delete", current, null);
  });
}

/**
 * One write-only value, asked for on its own (docs/signing.md#secrets): a secret, or a custom
 * header's value by its name (in any letter case). 404 when the destination has no such value.
 */
export async function revealDestinationSecret(opts: Change & { id: string; which: RevealInput }): Promise<{ value: string }> {
  const row = await findRow(opts);
  const { which } = opts;
  const value = which.header
    ? storedHeaders(row).find((h) => h.name.toLowerCase() === which.header!.trim().toLowerCase())?.value
    : which.secret === "sharedSecret"
      ? row.sharedSecret
      : which.secret === "standardSecret"
        ? row.standardSecret
        : which.secret === "authClientSecret"
          ? storedAuth(row.auth)?.clientSecret
          : storedTls(row.tls)?.clientKey;
  if (!value) throw notFound(which.header ? `Header ${which.header}` : SECRET_LABELS[which.secret!]);
  // Who saw a secret is a change worth knowing about (docs/management-api.md#audit-log); the value never is.
  await prisma().$transaction((tx) =>
    recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "destination.reveal_secret",
      resourceType: "destination",
      resourceId: row.id,
      changes: { revealed: { before: null, after: which.header ? `header ${which.header}` : which.secret } },
    }),
  );
  return { value };
}

const SECRET_LABELS = {
  sharedSecret: "Shared secret",
  standardSecret: "Standard Webhooks secret",
  authClientSecret: "OAuth2 client secret",
  tlsClientKey: "Client key",
} as const;

/** The columns of each rotatable secret: a fixed list, so a column name in SQL never comes from a request. */
const SECRET_COLUMNS = {
  sharedSecret: { current: "shared_secret", previous: "previous_shared_secret", expiresAt: "previous_shared_secret_expires_at" },
  standardSecret: { current: "standard_secret", previous: "previous_standard_secret", expiresAt: "previous_standard_secret_expires_at" },
} as const;

/** A new shared secret as the form's generator makes one (form-state.ts): 24 random bytes in lowercase hex, 48 characters. */
export const generateSharedSecret = () => crypto.randomBytes(24).toString("hex");

/**
 * Rotating a destination secret (docs/signing.md#secret-rotation): the new secret signs at once; the
 * current one keeps signing beside it for the grace period (X-Signature stays its signature, with
 * X-Signature-Next the new one's; webhook-signature carries both), then only the new one signs. One
 * previous secret at a time: rotating again during a grace period ends the older one's at once. The
 * end is on the database's clock; senders compare it when they prepare requests. The new secret is
 * in the answer only. Audited in the same transaction, without the secret.
 */
export async function rotateDestinationSecret(opts: Change & { id: string; input: RotateSecretInput }): Promise<RotatedSecret> {
  if (opts.input.secret === "authClientSecret") return rotateClientSecret(opts);
  if (opts.input.secret === "tlsClientKey") return rotateClientTls(opts);
  const { graceMinutes: grace } = opts.input;
  const secret = opts.input.secret as keyof typeof SECRET_COLUMNS;
  const col = SECRET_COLUMNS[secret];
  const label = secret === "sharedSecret" ? "shared secret" : "Standard Webhooks secret";
  return rotateInTransaction(opts, async (tx, current) => {
    if (!current[secret]) throw new AppError("conflict", `This destination has no ${label} to rotate: set one in its settings first`);
    const value = opts.input.value ?? (secret === "sharedSecret" ? generateSharedSecret() : generateStandardSecret());
    if (value === current[secret]) throw sameSecret(`This is the current ${label}: a rotation needs a new one`);
    // In one statement: the secret being replaced is the one in the row at that moment (the column on
    // the right of SET is the old value), so concurrent rotations cannot lose a secret in between.
    await tx.$executeRaw`
      UPDATE destinations
         SET ${Prisma.raw(col.previous)} = CASE WHEN ${grace}::int > 0 THEN ${Prisma.raw(col.current)} END,
             ${Prisma.raw(col.expiresAt)} = CASE WHEN ${grace}::int > 0 THEN now() + make_interval(mins => ${grace}::int) END,
             ${Prisma.raw(col.current)} = ${value},
             updated_at = now()
       WHERE id = ${current.id}::uuid AND workspace_id = ${opts.workspaceId}::uuid`;
    return { value, changes: { [secret]: { before: "changed", after: "changed" } } };
  });
}

/** The error of a rotation to the secret already in use, on the form's `value` field. */
const sameSecret = (message: string) => new AppError("validation_failed", "Some fields are invalid", { value: [message] });

/**
 * What every rotation shares: in one transaction, the destination read, `rotate` checking and
 * writing the new secret (in one statement, the one it replaces read in that statement), the
 * destination read again and the rotation audited — the changed fields and the grace, never a
 * secret. The answer carries what `rotate` says the user gets back.
 */
async function rotateInTransaction(
  opts: Change & { id: string; input: RotateSecretInput },
  rotate: (tx: Tx, current: Row) => Promise<{ value: string; changes: Record<string, { before: unknown; after: unknown }> }>,
): Promise<RotatedSecret> {
  const { after, value } = await prisma().$transaction(async (tx) => {
    const current = await findRow(opts, tx);
    const { value, changes } = await rotate(tx, current);
    const after = await findRow(opts, tx);
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "destination.rotate_secret",
      resourceType: "destination",
      resourceId: current.id,
      changes: { ...changes, graceMinutes: { before: null, after: opts.input.graceMinutes } },
    });
    return { after, value };
  });
  return { value, destination: toDto(after) };
}

/**
 * Rotating the OAuth2 client secret (docs/endpoint-auth.md#rotation): the new one, which the
 * authorization server issued, is used at once; with a grace period the current one stays beside it,
 * tried only while the token endpoint refuses the new one as a client, until the grace ends. In one
 * statement on the auth column, as the signing secrets' rotation is; audited without either secret.
 */
function rotateClientSecret(opts: Change & { id: string; input: RotateSecretInput }): Promise<RotatedSecret> {
  const { graceMinutes: grace, value } = opts.input;
  return rotateInTransaction(opts, async (tx, current) => {
    const auth = storedAuth(current.auth);
    if (!auth)
      throw new AppError("conflict", "This destination has no OAuth2 client secret to rotate: set up OAuth2 in its settings first");
    if (value === auth.clientSecret) throw sameSecret("This is the current client secret: a rotation needs a new one");
    await tx.$executeRaw`
      UPDATE destinations
         SET auth = (auth::jsonb - 'previousClientSecret' - 'previousClientSecretExpiresAt')
                    || jsonb_build_object('clientSecret', ${value}::text)
                    || CASE WHEN ${grace}::int > 0
                            THEN jsonb_build_object('previousClientSecret', auth::jsonb->>'clientSecret',
                                                    'previousClientSecretExpiresAt', now() + make_interval(mins => ${grace}::int))
                            ELSE '{}'::jsonb END,
             updated_at = now()
       WHERE id = ${current.id}::uuid AND workspace_id = ${opts.workspaceId}::uuid AND auth IS NOT NULL`;
    return { value: value!, changes: { authClientSecret: { before: "changed", after: "changed" } } };
  });
}

/**
 * Rotating the mutual TLS certificate and key (docs/endpoint-auth.md#rotation): the new pair, from
 * the user's CA, is presented at once; with a grace period the current pair stays beside it, presented
 * while the receiver refuses the new one, until the grace ends. Checked as a saved setting is (the
 * key must be the certificate's); in one statement on the tls column; audited without either key.
 * The answer's `value` is the new certificate (the key is write-only).
 */
function rotateClientTls(opts: Change & { id: string; input: RotateSecretInput }): Promise<RotatedSecret> {
  const { graceMinutes: grace, value: clientKey, clientCert } = opts.input;
  return rotateInTransaction(opts, async (tx, current) => {
    const tls = storedTls(current.tls);
    if (!tls)
      throw new AppError("conflict", "This destination has no client certificate to rotate: set up mutual TLS in its settings first");
    const errors = checkClientTls({ clientCert: clientCert!, clientKey: clientKey!, ca: tls.ca });
    if (errors)
      throw new AppError("validation_failed", "Some fields are invalid", {
        ...(errors["tls.clientCert"] ? { clientCert: errors["tls.clientCert"] } : {}),
        ...(errors["tls.clientKey"] ? { value: errors["tls.clientKey"] } : {}),
      });
    if (clientKey === tls.clientKey) throw sameSecret("This is the current client key: a rotation needs a new one");
    await tx.$executeRaw`
      UPDATE destinations
         SET tls = (tls::jsonb - 'previousClientCert' - 'previousClientKey' - 'previousExpiresAt')
                   || jsonb_build_object('clientCert', ${clientCert}::text, 'clientKey', ${clientKey}::text)
                   || CASE WHEN ${grace}::int > 0
                           THEN jsonb_build_object('previousClientCert', tls::jsonb->>'clientCert',
                                                   'previousClientKey', tls::jsonb->>'clientKey',
                                                   'previousExpiresAt', now() + make_interval(mins => ${grace}::int))
                           ELSE '{}'::jsonb END,
             updated_at = now()
       WHERE id = ${current.id}::uuid AND workspace_id = ${opts.workspaceId}::uuid AND tls IS NOT NULL`;
    return {
      value: clientCert!,
      changes: {
        tlsClientKey: { before: "changed", after: "changed" },
        clientCert: {
          before: describeCertificate(tls.clientCert)?.subject ?? null,
          after: describeCertificate(clientCert!)?.subject ?? null,
        },
      },
    };
  });
}

/** The saved destination with a warning for each URL its deliveries would refuse as private (docs/webhooks.md#outbound-safety). */
function withWarnings(dto: DestinationDto): SavedDestinationDto {
  const warnings = dto.urls.flatMap((url, i) => {
    const message = privateTargetWarning(url);
    return message ? [{ field: `urls.${i}`, message }] : [];
  });
  return { ...dto, warnings };
}
